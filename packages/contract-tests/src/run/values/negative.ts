// Negative values: mutations of a valid value that break one constraint.

import { isObject, type JsonObject, type Located, type SpecValidator } from '@platform-api/validator';
import fc from 'fast-check';
import { fixedNoise, type Noise, noise, quoted, withControlCharacter } from './noise.js';
import { generate } from './positive.js';
import { child, folded, MAX_DEPTH, resolveSchema, typesOf } from './schemas.js';
import { FORMATS } from './strings.js';
import { type GenerationOptions, isValid, notASegment } from './validity.js';

export interface InvalidValue {
  value: unknown;
  /** What it breaks, e.g. "maximum (500)", "email: required, left out". */
  violates: string;
}

export interface Mutation {
  label: string;
  /** The label with what the noise put in (an unknown property's name, a control character). */
  describe?: (noise: Noise) => string;
  apply: (base: unknown, noise: Noise) => unknown;
}

/** What a mutation broke, as a failure names it. */
export function describeMutation(mutation: Mutation, noise: Noise): string {
  return mutation.describe?.(noise) ?? mutation.label;
}

export function mutations(
  validator: SpecValidator,
  schema: Located<unknown>,
  options: GenerationOptions,
  depth: number,
): Mutation[] {
  const located = folded(validator, resolveSchema(validator, schema));
  const node = located.node;
  const body = !options.location || options.location === 'body';
  const types = typesOf(node);
  // An object where text travels is a form body: its fields are broken one at a time, never its type.
  const form = !body && depth === 0 && types.length === 1 && types[0] === 'object';
  const structured = (body || form) && depth < MAX_DEPTH;
  return [
    ...valueMutations(node, types, body, form),
    ...(body && types.includes('array') && depth < MAX_DEPTH
      ? arrayMutations(validator, located, options, depth)
      : []),
    ...(structured && types.includes('object')
      ? objectMutations(validator, located, options, depth, body)
      : []),
  ];
}

/** The value replaced outright: another type, null, outside the enum or the bounds, a broken format. */
function valueMutations(node: JsonObject, types: string[], body: boolean, form: boolean): Mutation[] {
  const found: Mutation[] = [];
  const constant = (label: string, value: unknown) => found.push({ label, apply: () => value });
  if (types.length > 0 && !form) {
    if (!types.includes('string') || body) {
      if (types.every((type) => type !== 'string'))
        constant(`type ${types.join('|')}: a string`, 'not-a-valid-value');
      else if (!types.includes('integer') && !types.includes('number'))
        constant(`type ${types.join('|')}: a number`, 12345);
    }
    if (body && !types.includes('null')) constant(`type ${types.join('|')}: null`, null);
    if (body && !types.includes('object') && !types.includes('array'))
      constant(`type ${types.join('|')}: an object`, { unexpected: true });
  }
  if (Array.isArray(node.enum))
    constant('not one of the enum', typeof node.enum[0] === 'number' ? -987654 : 'not-in-the-enum');
  if (typeof node.minimum === 'number') constant(`minimum (${node.minimum}) − 1`, node.minimum - 1);
  if (typeof node.maximum === 'number') constant(`maximum (${node.maximum}) + 1`, node.maximum + 1);
  if (typeof node.exclusiveMinimum === 'number')
    constant(`exclusiveMinimum (${node.exclusiveMinimum})`, node.exclusiveMinimum);
  if (typeof node.exclusiveMaximum === 'number')
    constant(`exclusiveMaximum (${node.exclusiveMaximum})`, node.exclusiveMaximum);
  if (types.includes('integer')) constant('an integer: a fraction', 1.5);
  if (typeof node.minLength === 'number' && node.minLength > 0)
    constant(`minLength (${node.minLength}) − 1`, 'a'.repeat(node.minLength - 1));
  if (typeof node.maxLength === 'number')
    constant(`maxLength (${node.maxLength}) + 1`, 'a'.repeat(node.maxLength + 1));
  if (typeof node.format === 'string' && FORMATS[node.format])
    constant(`format ${node.format}`, `not-a-${node.format}`);
  if (typeof node.pattern === 'string') {
    const pattern = new RegExp(node.pattern, 'u');
    const candidate = ['', ' ', '!', '~~~', 'ÿ', '\u0000'].find((text) => !pattern.test(text));
    if (candidate !== undefined) constant(`pattern ${node.pattern}`, candidate);
  }
  // A pattern or format may forbid control characters; where no constraint does, positive values carry them.
  const textConstraint =
    typeof node.format === 'string'
      ? `format ${node.format}`
      : typeof node.pattern === 'string'
        ? `pattern ${node.pattern}`
        : undefined;
  if (body && types.includes('string') && textConstraint)
    found.push({
      label: `${textConstraint}: a control character`,
      describe: ({ control }) => `${textConstraint}: the control character ${quoted(control)}`,
      apply: (base, { control }) => (typeof base === 'string' ? withControlCharacter(base, control) : base),
    });
  return found;
}

/** An array's items too few, too many, repeated, or one of them broken. */
function arrayMutations(
  validator: SpecValidator,
  located: Located,
  options: GenerationOptions,
  depth: number,
): Mutation[] {
  const { node } = located;
  const found: Mutation[] = [];
  const { minItems, maxItems } = node;
  if (typeof minItems === 'number' && minItems > 0)
    found.push({
      label: `minItems (${minItems}) − 1`,
      apply: (base) => (Array.isArray(base) ? base.slice(0, minItems - 1) : base),
    });
  if (typeof maxItems === 'number')
    found.push({
      label: `maxItems (${maxItems}) + 1`,
      apply: (base) =>
        Array.isArray(base) && base.length > 0
          ? Array.from({ length: maxItems + 1 }, (_, i) => base[i % base.length])
          : base,
    });
  if (node.uniqueItems === true)
    found.push({
      label: 'uniqueItems: a duplicate',
      apply: (base) => (Array.isArray(base) && base.length > 0 ? [...base, base[0]] : base),
    });
  if (node.items !== undefined) {
    for (const inner of mutations(validator, child(located, 'items'), options, depth + 1)) {
      found.push({
        label: `items: ${inner.label}`,
        describe: (noise) => `items: ${describeMutation(inner, noise)}`,
        apply: (base, noise) =>
          Array.isArray(base) && base.length > 0 ? [inner.apply(base[0], noise), ...base.slice(1)] : base,
      });
    }
  }
  return found;
}

/** An object's required property left out, a property it does not allow, or one of its properties broken. */
function objectMutations(
  validator: SpecValidator,
  located: Located,
  options: GenerationOptions,
  depth: number,
  body: boolean,
): Mutation[] {
  const { node } = located;
  const found: Mutation[] = [];
  const properties = isObject(node.properties) ? node.properties : {};
  for (const name of Array.isArray(node.required) ? (node.required as string[]) : []) {
    found.push({
      label: `${name}: required, left out`,
      apply: (base) => (isObject(base) ? omit(base, name) : base),
    });
  }
  const closed = node.additionalProperties === false || node.unevaluatedProperties === false;
  // Form fields are plain text: one plain unknown name; a JSON body gets the noise's (control characters).
  if (closed && !body)
    found.push({
      label: 'an unknown property',
      apply: (base) => (isObject(base) ? { ...base, unknownPropertyX9: 1 } : base),
    });
  if (closed && body)
    found.push({
      label: 'an unknown property',
      describe: ({ property }) => `an unknown property ${quoted(property.name)}`,
      apply: (base, { property }) =>
        isObject(base) && !(property.name in properties)
          ? { ...base, [property.name]: property.value }
          : base,
    });
  for (const name of Object.keys(properties)) {
    for (const inner of mutations(validator, child(located, 'properties', name), options, depth + 1)) {
      found.push({
        label: `${name}: ${inner.label}`,
        describe: (noise) => `${name}: ${describeMutation(inner, noise)}`,
        apply: (base, noise) => (isObject(base) ? { ...base, [name]: inner.apply(base[name], noise) } : base),
      });
    }
  }
  return found;
}

function omit(object: JsonObject, name: string): JsonObject {
  const copy = { ...object };
  delete copy[name];
  return copy;
}

/**
 * Values that break one constraint each, and that `sendable` accepts (default: any). Only mutations seen
 * to break a sample of valid values take part: one that never can (a "wrong type" a form cannot carry)
 * would leave fast-check's filter retrying forever.
 */
export function invalidValues(
  validator: SpecValidator,
  schema: Located<unknown>,
  options: GenerationOptions = {},
  sendable: (value: unknown) => boolean = () => true,
): fc.Arbitrary<InvalidValue> | undefined {
  const bases = generate(validator, schema, options, 0);
  const breaks = (value: unknown) =>
    value !== undefined &&
    !(options.location === 'path' && notASegment(value)) &&
    sendable(value) &&
    !isValid(validator, schema.pointer, value, options);
  const samples = fc.sample(bases, { numRuns: 8, seed: 1 });
  const sampleNoise = fixedNoise(options);
  const found = mutations(validator, schema, options, 0).filter((mutation) =>
    samples.some((base) => breaks(mutation.apply(structuredClone(base), sampleNoise))),
  );
  if (found.length === 0) return undefined;
  return fc
    .tuple(bases, fc.constantFrom(...found), noise(options))
    .map(([base, mutation, chosen]) => ({
      value: mutation.apply(structuredClone(base), chosen),
      violates: describeMutation(mutation, chosen),
    }))
    .filter(({ value }) => breaks(value));
}
