// Minimal structural types for the parts of an OpenAPI 3.1 document the contract suite reads,
// plus local `$ref` resolution that keeps track of where a node lives (its JSON pointer), so that
// schemas can be compiled by pointer against the one Ajv instance holding the whole document.

export type JsonObject = { [key: string]: unknown };

export interface OpenApiDocument extends JsonObject {
  openapi: string;
  paths?: Record<string, JsonObject>;
  webhooks?: Record<string, JsonObject>;
  components?: JsonObject;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface Located<T = JsonObject> {
  node: T;
  pointer: string;
}

export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function joinPointer(pointer: string, ...tokens: string[]): string {
  return [pointer, ...tokens.map(escapePointerToken)].join('/');
}

export function getByPointer(document: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '#') return document;
  const tokens = pointer.replace(/^#?\//, '').split('/');
  let current: unknown = document;
  for (const raw of tokens) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as JsonObject)[token];
  }
  return current;
}

/** Follows local `$ref`s (`#/…`) until a non-reference node, returning it with its pointer. */
export function resolveLocal<T = JsonObject>(
  document: OpenApiDocument,
  located: Located<unknown>,
): Located<T> {
  let { node, pointer } = located;
  const seen = new Set<string>();
  while (node && typeof node === 'object' && typeof (node as JsonObject).$ref === 'string') {
    const ref = (node as JsonObject).$ref as string;
    if (!ref.startsWith('#'))
      throw new Error(`Only local $refs are supported in a bundle, found ${ref} at ${pointer}`);
    if (seen.has(ref)) throw new Error(`Circular $ref ${ref}`);
    seen.add(ref);
    pointer = ref;
    node = getByPointer(document, ref);
    if (node === undefined) throw new Error(`Unresolvable $ref ${ref}`);
  }
  return { node: node as T, pointer };
}

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
