// Positive values: schema-valid values, generated aiming at the schema and filtered by it.

import { isObject, type JsonObject, type Located, type SpecValidator } from '@platform-api/validator';
import fc from 'fast-check';
import { type UnknownProperty, unknownProperty } from './noise.js';
import { child, folded, MAX_ARRAY, MAX_DEPTH, resolveSchema, typesOf } from './schemas.js';
import { strings } from './strings.js';
import { type GenerationOptions, isValid } from './validity.js';

/** A schema the generator cannot satisfy: the operation is skipped with this reason, never a hang. */
export class GenerationError extends Error {}

const positiveCache = new WeakMap<SpecValidator, Map<string, fc.Arbitrary<unknown>>>();

export function validValues(
  validator: SpecValidator,
  schema: Located<unknown>,
  options: GenerationOptions = {},
): fc.Arbitrary<unknown> {
  let cache = positiveCache.get(validator);
  if (!cache) {
    cache = new Map();
    positiveCache.set(validator, cache);
  }
  const key = `${schema.pointer} ${options.location ?? 'body'} ${options.allowNul !== false}`;
  const cached = cache.get(key);
  if (cached) return cached;
  // The generator aims at valid values; the filter catches what it cannot aim at (not, if/then, …).
  // A generator that misses entirely would make the filter spin for ever: refuse it loudly instead.
  const raw = generate(validator, schema, options, 0);
  const valid = (value: unknown) => isValid(validator, schema.pointer, value, options);
  if (!fc.sample(raw, { numRuns: 50, seed: 7 }).some(valid)) {
    throw new GenerationError(`cannot generate valid values for the schema at ${schema.pointer}`);
  }
  const arbitrary = raw.filter(valid);
  cache.set(key, arbitrary);
  return arbitrary;
}

export function generate(
  validator: SpecValidator,
  schema: Located<unknown>,
  options: GenerationOptions,
  depth: number,
): fc.Arbitrary<unknown> {
  const located = folded(validator, resolveSchema(validator, schema));
  const node = located.node;
  if ('const' in node) return fc.constant(node.const);
  if (Array.isArray(node.enum) && node.enum.length > 0) return fc.constantFrom(...node.enum);
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = node[keyword];
    if (Array.isArray(branches) && branches.length > 0) {
      // Keywords beside oneOf/anyOf hold for every branch: each branch is generated merged with them.
      const siblings: JsonObject = { ...node };
      delete siblings[keyword];
      return fc.oneof(
        ...branches.map((_, index) => {
          const branch = resolveSchema(validator, child(located, keyword, String(index)));
          const merged = folded(validator, {
            node: { ...siblings, allOf: [branch.node] },
            pointer: located.pointer,
          });
          return generate(validator, merged, options, depth + 1);
        }),
      );
    }
  }
  const types = typesOf(node);
  const candidates = (types.length > 0 ? types : ['string', 'integer', 'boolean']).map((type) =>
    forType(validator, located, type, options, depth),
  );
  const [only, ...others] = candidates;
  return only && others.length === 0 ? only : fc.oneof(...candidates);
}

function forType(
  validator: SpecValidator,
  located: Located,
  type: string,
  options: GenerationOptions,
  depth: number,
): fc.Arbitrary<unknown> {
  const node = located.node;
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const [min, max] = integerBounds(node);
      const step =
        typeof node.multipleOf === 'number' && Number.isInteger(node.multipleOf) ? node.multipleOf : 1;
      return fc.integer({ min: Math.ceil(min / step), max: Math.floor(max / step) }).map((n) => n * step);
    }
    case 'number': {
      const [min, max] = integerBounds(node);
      return fc.oneof(
        fc.integer({ min, max }),
        fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
      );
    }
    case 'string':
      return strings(node, options);
    case 'array': {
      if (depth >= MAX_DEPTH) return fc.constant([]);
      const items =
        node.items === undefined
          ? fc.string()
          : generate(validator, child(located, 'items'), options, depth + 1);
      const minLength = typeof node.minItems === 'number' ? node.minItems : 0;
      const maxLength = Math.min(
        typeof node.maxItems === 'number' ? node.maxItems : minLength + MAX_ARRAY,
        minLength + MAX_ARRAY,
      );
      return node.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (item) => JSON.stringify(item) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object': {
      const properties = isObject(node.properties) ? node.properties : {};
      const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
      // A property whose schema is `false` must be absent.
      const names = Object.keys(properties).filter(
        (name) => properties[name] !== false && (depth < MAX_DEPTH || required.has(name)),
      );
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const name of names)
        record[name] = generate(validator, child(located, 'properties', name), options, depth + 1);
      const known = fc.record(record, { requiredKeys: names.filter((name) => required.has(name)) });
      const extra = unknownPropertyFor(validator, located, options, depth);
      if (!extra) return known;
      // Now and then a property the schema does not list: valid unless the schema closes the object
      // (then the validity filter drops it; negative values send it on purpose).
      return fc
        .tuple(
          known,
          fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: extra, weight: 1 }),
        )
        .map(([value, unknown]) =>
          unknown && !(unknown.name in properties) ? { ...value, [unknown.name]: unknown.value } : value,
        );
    }
    default:
      return fc.constant(null);
  }
}

/**
 * The unknown properties an object body may carry: names with control characters (noise.ts), values of
 * its `additionalProperties` schema or else noisy text. None where text travels (form fields, parameters)
 * or where the schema closes the object anyway.
 */
function unknownPropertyFor(
  validator: SpecValidator,
  located: Located,
  options: GenerationOptions,
  depth: number,
): fc.Arbitrary<UnknownProperty> | undefined {
  const node = located.node;
  if ((options.location && options.location !== 'body') || depth >= MAX_DEPTH) return undefined;
  if (node.additionalProperties === false || node.unevaluatedProperties === false) return undefined;
  const names = unknownProperty(options);
  if (!isObject(node.additionalProperties)) return names;
  const values = generate(validator, child(located, 'additionalProperties'), options, depth + 1);
  return fc.tuple(names, values).map(([{ name }, value]) => ({ name, value }));
}

function integerBounds(node: JsonObject): [number, number] {
  const int32 = node.format === 'int32';
  let min = typeof node.minimum === 'number' ? node.minimum : int32 ? -(2 ** 31) : -1_000_000_000;
  let max = typeof node.maximum === 'number' ? node.maximum : int32 ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
  if (typeof node.exclusiveMinimum === 'number') min = Math.max(min, Math.floor(node.exclusiveMinimum) + 1);
  if (typeof node.exclusiveMaximum === 'number') max = Math.min(max, Math.ceil(node.exclusiveMaximum) - 1);
  return [Math.ceil(min), Math.floor(max)];
}
