// Values from JSON Schema 2020-12 (as the bundles use it), with fast-check: schema-valid values
// (positive), values that break one constraint (negative, as mutations of a valid value), and the
// deterministic boundary list of the coverage phase. Every value is checked against the schema with
// the spec's own Ajv before it is used — a generator's mistake becomes a filtered value, never a false
// report. Parameters travel as text, so their values are checked as a server sees them: coerced.
import {
  createSpecAjv,
  isObject,
  type JsonObject,
  joinPointer,
  type Located,
  type Operation,
  SPEC_ID,
  type SpecValidator,
} from '@platform-api/validator';
import fc from 'fast-check';

export interface GenerationOptions {
  /** Where the value travels: a JSON body, or a parameter (sent as text, coerced by the server). */
  location?: 'body' | 'query' | 'path' | 'header';
  /** Allow U+0000 in generated strings (default true, as Schemathesis' allow_x00). */
  allowNul?: boolean;
}

export interface InvalidValue {
  value: unknown;
  /** What it breaks, e.g. "maximum (500)", "email: required, left out". */
  violates: string;
}

export interface CoverageValue {
  value: unknown;
  valid: boolean;
  label: string;
}

const MAX_DEPTH = 4;
const MAX_ARRAY = 4;

// ---------------------------------------------------------------------------------------------------
// Validity, as the server sees it.

type ValidateFunction = ReturnType<ReturnType<typeof createSpecAjv>['compile']>;

const coercing = new WeakMap<
  SpecValidator,
  { ajv: ReturnType<typeof createSpecAjv>; wrappers: Map<string, ValidateFunction> }
>();

function isValid(
  validator: SpecValidator,
  pointer: string,
  value: unknown,
  options: GenerationOptions,
): boolean {
  if (value === undefined) return false;
  // An empty path segment makes another URL (another operation's, or a trailing slash): never a value.
  if (options.location === 'path' && notASegment(value)) return false;
  if (!options.location || options.location === 'body')
    return validator.validateAt(pointer, value).length === 0;
  let compiled = coercing.get(validator);
  if (!compiled) {
    compiled = { ajv: createSpecAjv(validator.document, { coerce: true }), wrappers: new Map() };
    coercing.set(validator, compiled);
  }
  // Ajv coerces a value in place, so only inside a container; the wrapper is that container.
  let wrapper = compiled.wrappers.get(pointer);
  if (!wrapper) {
    wrapper = compiled.ajv.compile({
      type: 'object',
      properties: { value: { $ref: `${SPEC_ID}${pointer}` } },
    });
    compiled.wrappers.set(pointer, wrapper);
  }
  return wrapper({ value: onTheWire(value) }) === true;
}

/** Values a URL cannot carry as one path segment: empty, or a dot-segment clients resolve away. */
function notASegment(value: unknown): boolean {
  const segment = text(value);
  return segment === '' || segment === '.' || segment === '..';
}

/** A parameter value as the server receives it: text, or a list of texts. */
function onTheWire(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(text);
  // A form body: each field travels as text.
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, onTheWire(item)]));
  return text(value);
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

// ---------------------------------------------------------------------------------------------------
// Schemas.

function resolveSchema(validator: SpecValidator, schema: Located<unknown>): Located {
  let located = schema as Located;
  for (let hops = 0; hops < 10 && isObject(located.node) && typeof located.node.$ref === 'string'; hops++) {
    located = validator.resolve(located);
  }
  return isObject(located.node) ? located : { node: {}, pointer: located.pointer };
}

const child = (located: Located, ...tokens: string[]): Located<unknown> => ({
  node: tokens.reduce<unknown>(
    (node, token) => (isObject(node) || Array.isArray(node) ? (node as JsonObject)[token] : undefined),
    located.node,
  ),
  pointer: joinPointer(located.pointer, ...tokens),
});

function typesOf(node: JsonObject): string[] {
  if (Array.isArray(node.type)) return node.type as string[];
  if (typeof node.type === 'string') return [node.type];
  if (isObject(node.properties) || node.required) return ['object'];
  if (node.items) return ['array'];
  if (typeof node.pattern === 'string' || typeof node.format === 'string' || node.minLength !== undefined)
    return ['string'];
  if (node.minimum !== undefined || node.maximum !== undefined) return ['number'];
  return [];
}

/** allOf branches folded into one schema (properties and required merged, the rest the first one set). */
function folded(validator: SpecValidator, located: Located): Located {
  if (!Array.isArray(located.node.allOf)) return located;
  const merged: JsonObject = { ...located.node };
  delete merged.allOf;
  const properties: JsonObject = isObject(merged.properties) ? { ...merged.properties } : {};
  const required = new Set<string>(Array.isArray(merged.required) ? (merged.required as string[]) : []);
  (located.node.allOf as unknown[]).forEach((_, index) => {
    const branch = folded(validator, resolveSchema(validator, child(located, 'allOf', String(index))));
    for (const [key, value] of Object.entries(branch.node)) {
      if (key === 'properties' && isObject(value)) Object.assign(properties, value);
      else if (key === 'required' && Array.isArray(value))
        for (const name of value) required.add(String(name));
      else if (!(key in merged)) merged[key] = value;
    }
  });
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return { node: merged, pointer: located.pointer };
}

// ---------------------------------------------------------------------------------------------------
// Positive values.

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

function generate(
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
  return candidates.length === 1 ? candidates[0]! : fc.oneof(...candidates);
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
      return fc.record(record, { requiredKeys: names.filter((name) => required.has(name)) });
    }
    default:
      return fc.constant(null);
  }
}

function integerBounds(node: JsonObject): [number, number] {
  const int32 = node.format === 'int32';
  let min = typeof node.minimum === 'number' ? node.minimum : int32 ? -(2 ** 31) : -1_000_000_000;
  let max = typeof node.maximum === 'number' ? node.maximum : int32 ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
  if (typeof node.exclusiveMinimum === 'number') min = Math.max(min, Math.floor(node.exclusiveMinimum) + 1);
  if (typeof node.exclusiveMaximum === 'number') max = Math.min(max, Math.ceil(node.exclusiveMaximum) - 1);
  return [Math.ceil(min), Math.floor(max)];
}

function strings(node: JsonObject, options: GenerationOptions): fc.Arbitrary<string> {
  const minLength = typeof node.minLength === 'number' ? node.minLength : 0;
  const maxLength = typeof node.maxLength === 'number' ? node.maxLength : Math.max(minLength, 40);
  const fits = (value: string) => {
    const length = [...value].length;
    return length >= minLength && length <= maxLength;
  };
  if (typeof node.format === 'string' && FORMATS[node.format]) return FORMATS[node.format]!.filter(fits);
  if (typeof node.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(node.pattern, 'u')).filter(fits);
    } catch {
      // A pattern fast-check cannot invert: generic strings, filtered by validity upstream.
    }
  }
  const allowNul = options.allowNul !== false;
  // Mostly printable ASCII, some of any Unicode; text travelling in a URL or header stays printable.
  const unit =
    options.location && options.location !== 'body'
      ? fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~')
      : fc.oneof(
          { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }), weight: 6 },
          { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 3 },
          { arbitrary: fc.constant('\u0000'), weight: allowNul ? 1 : 0 },
        );
  return fc
    .string({ unit: unit as fc.Arbitrary<string>, minLength, maxLength })
    .filter((value) => allowNul || !value.includes('\u0000'));
}

const word = fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/);
const FORMATS: Record<string, fc.Arbitrary<string>> = {
  email: fc.tuple(word, word).map(([local, domain]) => `${local}@${domain}.example.com`),
  'date-time': fc
    .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((date) => date.toISOString()),
  date: fc
    .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((date) => date.toISOString().slice(0, 10)),
  time: fc
    .date({ noInvalidDate: true, min: new Date('2000-01-01'), max: new Date('2000-01-02') })
    .map((date) => date.toISOString().slice(11)),
  uri: fc.tuple(word, word).map(([host, path]) => `https://${host}.example.com/${path}`),
  'uri-reference': fc.tuple(word, word).map(([host, path]) => `https://${host}.example.com/${path}`),
  url: fc.tuple(word, word).map(([host, path]) => `https://${host}.example.com/${path}`),
  uuid: fc.uuid(),
  hostname: word.map((name) => `${name}.example.com`),
  ipv4: fc.ipV4(),
  ipv6: fc.ipV6(),
  byte: fc.base64String(),
};

// ---------------------------------------------------------------------------------------------------
// Negative values: mutations of a valid value that break one constraint.

interface Mutation {
  label: string;
  apply: (base: unknown) => unknown;
}

function mutations(
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
    for (const candidate of ['', ' ', '!', '~~~', 'ÿ', '\u0000']) {
      if (!new RegExp(node.pattern, 'u').test(candidate)) {
        constant(`pattern ${node.pattern}`, candidate);
        break;
      }
    }
  }
  if (body && types.includes('array') && depth < MAX_DEPTH) {
    if (typeof node.minItems === 'number' && node.minItems > 0)
      found.push({
        label: `minItems (${node.minItems}) − 1`,
        apply: (base) => (Array.isArray(base) ? base.slice(0, (node.minItems as number) - 1) : base),
      });
    if (typeof node.maxItems === 'number')
      found.push({
        label: `maxItems (${node.maxItems}) + 1`,
        apply: (base) =>
          Array.isArray(base) && base.length > 0
            ? Array.from({ length: (node.maxItems as number) + 1 }, (_, i) => base[i % base.length])
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
          apply: (base) =>
            Array.isArray(base) && base.length > 0 ? [inner.apply(base[0]), ...base.slice(1)] : base,
        });
      }
    }
  }
  if (structured && types.includes('object')) {
    const properties = isObject(node.properties) ? node.properties : {};
    for (const name of Array.isArray(node.required) ? (node.required as string[]) : []) {
      found.push({
        label: `${name}: required, left out`,
        apply: (base) => (isObject(base) ? omit(base, name) : base),
      });
    }
    if (node.additionalProperties === false)
      found.push({
        label: 'an unknown property',
        apply: (base) => (isObject(base) ? { ...base, unknownPropertyX9: 1 } : base),
      });
    for (const name of Object.keys(properties)) {
      for (const inner of mutations(validator, child(located, 'properties', name), options, depth + 1)) {
        found.push({
          label: `${name}: ${inner.label}`,
          apply: (base) => (isObject(base) ? { ...base, [name]: inner.apply(base[name]) } : base),
        });
      }
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
  const found = mutations(validator, schema, options, 0).filter((mutation) =>
    samples.some((base) => breaks(mutation.apply(structuredClone(base)))),
  );
  if (found.length === 0) return undefined;
  return fc
    .tuple(bases, fc.constantFrom(...found))
    .map(([base, mutation]) => ({ value: mutation.apply(structuredClone(base)), violates: mutation.label }))
    .filter(({ value }) => breaks(value));
}

// ---------------------------------------------------------------------------------------------------
// Coverage: a deterministic list of boundary values and one of each mutation.

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
  const add = (label: string, value: unknown) => {
    const key = JSON.stringify(value);
    if (value === undefined || seen.has(key) || values.length >= 60) return;
    seen.add(key);
    values.push({ value, valid: isValid(validator, schema.pointer, value, options), label });
  };
  const [base] = fc.sample(validValues(validator, schema, options), { numRuns: 1, seed });
  if (Array.isArray(node.enum))
    for (const member of node.enum) add(`enum member ${JSON.stringify(member)}`, member);
  for (const [bound, delta] of [
    ['minimum', 1],
    ['maximum', -1],
  ] as const) {
    const value = node[bound];
    if (typeof value === 'number') {
      add(`${bound} (${value})`, value);
      add(`${bound} (${value}) ${delta > 0 ? '+' : '−'} 1`, value + delta);
    }
  }
  if (typeof node.minLength === 'number') add(`minLength (${node.minLength})`, 'a'.repeat(node.minLength));
  if (typeof node.maxLength === 'number') add(`maxLength (${node.maxLength})`, 'a'.repeat(node.maxLength));
  if (typeof node.format === 'string' && FORMATS[node.format]) {
    const [formatted] = fc.sample(FORMATS[node.format]!, { numRuns: 1, seed });
    add(`format ${node.format}`, formatted);
  }
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
  for (const mutation of mutations(validator, schema, options, 0)) {
    add(mutation.label, mutation.apply(structuredClone(base)));
  }
  return values;
}

/** The schema of an operation's request body: its JSON (or form) media type, else the first one. */
export function requestBodySchema(
  validator: SpecValidator,
  operation: Operation,
): { mediaType: string; schema: Located<unknown> } | undefined {
  const body = operation.requestBody;
  if (!body) return undefined;
  const types = Object.keys(body.content);
  const mediaType =
    types.find((type) => type.includes('json')) ??
    types.find((type) => type === 'application/x-www-form-urlencoded') ??
    types[0];
  if (!mediaType || body.content[mediaType]?.schema === undefined) return undefined;
  return {
    mediaType,
    schema: {
      node: body.content[mediaType]!.schema,
      pointer: joinPointer(body.pointer, 'content', mediaType, 'schema'),
    },
  };
}
