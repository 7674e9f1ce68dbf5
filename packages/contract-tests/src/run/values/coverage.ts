// Coverage: a deterministic list of boundary values and one of each mutation.

import { isObject, type JsonObject, type Located, type SpecValidator } from '@platform-api/validator';
import fc from 'fast-check';
import { describeMutation, mutations } from './negative.js';
import { fixedNoise, quoted, withControlCharacters } from './noise.js';
import { generate, validValues } from './positive.js';
import { sampleOne } from './sample.js';
import { child, folded, MAX_DEPTH, resolveSchema } from './schemas.js';
import { FORMATS } from './strings.js';
import { type GenerationOptions, isValid } from './validity.js';

export interface CoverageValue {
  value: unknown;
  valid: boolean;
  label: string;
  /**
   * The properties of an object value that hold what the case's base value holds: what the case does not
   * test, so a fresh unique value may replace them (values/unique.ts).
   */
  unchanged?: string[];
}

export function coverageValues(
  validator: SpecValidator,
  schema: Located<unknown>,
  options: GenerationOptions = {},
  seed = 1,
): CoverageValue[] {
  const located = folded(validator, resolveSchema(validator, schema));
  const node = located.node;
  const values: CoverageValue[] = [];
  const seen = new Set<string>();
  // `validOnly`: a value that only counts as what its label says when the rest of it is valid.
  const add = (label: string, value: unknown, validOnly = false) => {
    const key = JSON.stringify(value);
    if (value === undefined || seen.has(key) || values.length >= 60) return;
    const valid = isValid(validator, schema.pointer, value, options);
    if (validOnly && !valid) return;
    seen.add(key);
    const unchanged = unchangedProperties(base, value);
    values.push({
      value,
      valid,
      label,
      ...(unchanged ? { unchanged } : {}),
    });
  };
  const [base] = fc.sample(validValues(validator, schema, options), { numRuns: 1, seed });
  const bounds = boundaries(validator, schema, options, 0, seed);
  for (const { label, apply } of bounds.filter(({ nested }) => !nested)) add(label, apply(base));
  if (base !== undefined) add('a valid value', base);
  if (isObject(base) && isObject(node.properties)) {
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    for (const name of Object.keys(node.properties)) {
      if (required.has(name)) continue;
      const [alone] = fc.sample(generate(validator, child(located, 'properties', name), options, 1), {
        numRuns: 1,
        seed,
      });
      const minimal = Object.fromEntries(Object.entries(base).filter(([key]) => required.has(key)));
      add(`${name} alone with the required properties`, { ...minimal, [name]: alone });
    }
  }
  const noise = fixedNoise(options);
  if (!options.location || options.location === 'body') {
    // An unknown property with U+0000 and control characters, and one without U+0000 (so that a refusal
    // of the first names its cause): refused where the object is closed, else taken, as the schema says.
    // Either way the answer must not choke on them, nor echo them raw.
    const withoutNul = fixedNoise({ ...options, allowNul: false }).property;
    for (const { name, value } of [noise.property, withoutNul]) {
      if (isObject(base) && !(isObject(node.properties) && name in node.properties))
        add(`an unknown property ${quoted(name)}`, { ...base, [name]: value });
    }
    add(
      `the control character ${quoted(noise.control)} in every string`,
      withControlCharacters(base, noise.control),
    );
  }
  for (const mutation of mutations(validator, schema, options, 0)) {
    add(describeMutation(mutation, noise), mutation.apply(structuredClone(base), noise));
  }
  // The bounds inside a body last, in the room the rest leaves; each only where the whole stays valid, so
  // that its label names the one thing it tests.
  for (const { label, apply } of bounds.filter(({ nested }) => nested)) add(label, apply(base), true);
  return values;
}

/** A valid value at one of a schema's bounds, put in place of the base value's part it is for. */
interface Boundary {
  label: string;
  /** Whether it sits inside the value (a property's, an array item's) rather than replacing it. */
  nested: boolean;
  /** The base value with the bound in place, or undefined where the base has no such part. */
  apply: (base: unknown) => unknown;
}

/**
 * The schema's boundary values: enum members, each bound and its neighbour inside, the shortest and longest
 * string, a value of its format; in a body, also those of each property (in an object otherwise the base)
 * and of the items (as a one-item array, where one item is allowed), as deep as the mutations go.
 */
function boundaries(
  validator: SpecValidator,
  schema: Located<unknown>,
  options: GenerationOptions,
  depth: number,
  seed: number,
): Boundary[] {
  const located = folded(validator, resolveSchema(validator, schema));
  const node = located.node;
  const found: Boundary[] = [];
  const constant = (label: string, value: unknown) =>
    found.push({ label, nested: false, apply: () => value });
  if (Array.isArray(node.enum))
    for (const member of node.enum) constant(`enum member ${JSON.stringify(member)}`, member);
  for (const [bound, delta] of [
    ['minimum', 1],
    ['maximum', -1],
  ] as const) {
    const value = node[bound];
    if (typeof value === 'number') {
      constant(`${bound} (${value})`, value);
      constant(`${bound} (${value}) ${delta > 0 ? '+' : '−'} 1`, value + delta);
    }
  }
  if (typeof node.minLength === 'number')
    constant(`minLength (${node.minLength})`, 'a'.repeat(node.minLength));
  if (typeof node.maxLength === 'number')
    constant(`maxLength (${node.maxLength})`, 'a'.repeat(node.maxLength));
  const format = typeof node.format === 'string' ? FORMATS[node.format] : undefined;
  if (format) constant(`format ${node.format}`, sampleOne(format, seed));
  if ((options.location && options.location !== 'body') || depth >= MAX_DEPTH) return found;
  const inside = (label: string, apply: Boundary['apply']) => found.push({ label, nested: true, apply });
  const properties = isObject(node.properties) ? node.properties : {};
  for (const name of Object.keys(properties)) {
    for (const inner of boundaries(validator, child(located, 'properties', name), options, depth + 1, seed)) {
      inside(`${name}: ${inner.label}`, (base) => {
        const value = isObject(base) ? inner.apply(base[name]) : undefined;
        return value === undefined ? undefined : { ...(base as JsonObject), [name]: value };
      });
    }
  }
  if (node.items !== undefined && !(typeof node.minItems === 'number' && node.minItems > 1)) {
    for (const inner of boundaries(validator, child(located, 'items'), options, depth + 1, seed)) {
      inside(`items: ${inner.label}`, (base) => {
        const item = Array.isArray(base) ? inner.apply(base[0]) : undefined;
        return item === undefined ? undefined : [item];
      });
    }
  }
  return found;
}

function unchangedProperties(base: unknown, value: unknown): string[] | undefined {
  if (!isObject(base) || !isObject(value)) return undefined;
  return Object.keys(value).filter(
    (name) => name in base && JSON.stringify(base[name]) === JSON.stringify(value[name]),
  );
}
