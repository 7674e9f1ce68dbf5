// Validity as the server sees it: a JSON body as it is, a parameter or form field as text (coerced).

import { createSpecAjv, isObject, SPEC_ID, type SpecValidator } from '@platform-api/validator';

export interface GenerationOptions {
  /** Where the value travels: a JSON body, or a parameter (sent as text, coerced by the server). */
  location?: 'body' | 'query' | 'path' | 'header';
  /** Allow U+0000 in generated strings (default true, as Schemathesis' allow_x00). */
  allowNul?: boolean;
}

type ValidateFunction = ReturnType<ReturnType<typeof createSpecAjv>['compile']>;

const coercing = new WeakMap<
  SpecValidator,
  { ajv: ReturnType<typeof createSpecAjv>; wrappers: Map<string, ValidateFunction> }
>();

export function isValid(
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
export function notASegment(value: unknown): boolean {
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

export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
