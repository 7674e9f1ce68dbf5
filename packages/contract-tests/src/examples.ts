// Everything the contract suite derives from the spec's own examples: a valid request for each
// operation (the "examples" phase), schema-invalid variants of it (negative data), and the list of
// every example in the document with the schema it must satisfy.

import {
  isJsonMediaType,
  isObject,
  type JsonObject,
  joinPointer,
  type Located,
  type Operation,
  type SpecValidator,
} from '@platform-api/validator';
import type { CallOptions, QueryValue } from './client.js';

/** The first example of a parameter, media type or schema, following example `$ref`s. */
export function firstExample(validator: SpecValidator, located: Located): { value: unknown } | undefined {
  const { node } = located;
  if ('example' in node) return { value: node.example };
  if (isObject(node.examples)) {
    const [name, raw] = Object.entries(node.examples)[0] ?? [];
    if (name !== undefined) {
      const example = validator.resolve({
        node: raw,
        pointer: joinPointer(located.pointer, 'examples', name),
      });
      if ('value' in example.node) return { value: example.node.value };
    }
  }
  if (Array.isArray(node.examples) && node.examples.length > 0) return { value: node.examples[0] };
  if (isObject(node.schema)) {
    const schema = validator.resolve({ node: node.schema, pointer: joinPointer(located.pointer, 'schema') });
    const fromSchema = firstExample(validator, schema);
    if (fromSchema) return fromSchema;
    if ('default' in schema.node) return { value: schema.node.default };
    if (Array.isArray(schema.node.enum) && schema.node.enum.length > 0) return { value: schema.node.enum[0] };
    if ('const' in schema.node) return { value: schema.node.const };
  }
  return undefined;
}

export interface ExampleRequest extends CallOptions {
  /** The media type of the body, when the operation takes one. */
  contentType?: string;
}

/**
 * A request built only from the spec's examples: every path parameter, every required query/header
 * parameter, and the first documented request body example (of the first media type that is not multipart).
 */
export function exampleRequest(validator: SpecValidator, operation: Operation): ExampleRequest {
  const path: Record<string, string> = {};
  const query: Record<string, QueryValue> = {};
  const headers: Record<string, string> = {};
  const request: ExampleRequest = { path, query, headers };
  for (const parameter of operation.parameters) {
    const { node } = parameter;
    const required = node.required === true || node.in === 'path';
    if (!required) continue;
    const example = firstExample(validator, parameter);
    if (!example) throw new Error(`${operation.operationId}: parameter ${node.name} has no example`);
    const name = String(node.name);
    if (node.in === 'path') path[name] = String(example.value);
    else if (node.in === 'query') query[name] = example.value as QueryValue;
    else if (node.in === 'header') headers[name] = String(example.value);
  }
  const body = requestBody(validator, operation);
  if (body) {
    // The client sends JSON, form-encoded, text or bytes; it does not build multipart bodies, so a
    // `multipart/form-data` listed first (generators take the first media type) is passed over.
    const entries = Object.entries(body.content);
    const [mediaType, media] = entries.find(([type]) => !type.startsWith('multipart/')) ?? entries[0] ?? [];
    if (mediaType && media) {
      const example = firstExample(validator, media);
      if (example) {
        request.contentType = mediaType;
        request.body =
          mediaType === 'application/x-www-form-urlencoded' ? formEncode(example.value) : example.value;
      }
    }
  }
  return request;
}

/** A variant of the example request whose JSON body has the wrong type at the top level. */
export function invalidBodyRequest(
  validator: SpecValidator,
  operation: Operation,
): ExampleRequest | undefined {
  const body = requestBody(validator, operation);
  if (!body) return undefined;
  const jsonType = Object.entries(body.content).find(([mediaType]) => isJsonMediaType(mediaType));
  if (!jsonType) return undefined;
  const [mediaType, media] = jsonType;
  const schema = isObject(media.node.schema)
    ? validator.resolve({ node: media.node.schema, pointer: joinPointer(media.pointer, 'schema') }).node
    : {};
  const base = exampleRequest(validator, operation);
  // An array is never valid where an object is documented, and an object never where an array is.
  const wrong = schema.type === 'array' ? { not: 'an array' } : ['not', 'an', 'object'];
  return { ...base, contentType: mediaType, body: wrong };
}

function requestBody(
  validator: SpecValidator,
  operation: Operation,
): { content: Record<string, Located> } | undefined {
  if (!operation.node.requestBody) return undefined;
  const located = validator.resolve({
    node: operation.node.requestBody,
    pointer: joinPointer(operation.pointer, 'requestBody'),
  });
  if (!isObject(located.node.content)) return undefined;
  const content: Record<string, Located> = {};
  for (const [mediaType, media] of Object.entries(located.node.content)) {
    content[mediaType] = validator.resolve({
      node: media,
      pointer: joinPointer(located.pointer, 'content', mediaType),
    });
  }
  return { content };
}

function formEncode(value: unknown): string {
  if (typeof value === 'string') return value;
  const form = new URLSearchParams();
  for (const [name, item] of Object.entries((value ?? {}) as JsonObject)) form.append(name, String(item));
  return form.toString();
}

export interface DocumentedExample {
  /** Where the example lives. */
  pointer: string;
  /** The schema it must satisfy. */
  schemaPointer: string;
  value: unknown;
  /** Form bodies are validated after decoding, as the server sees them. */
  mediaType?: string;
}

/**
 * Every example in the document with its schema: media type and parameter examples (inline or
 * `$ref`'d from components/examples), and `examples` arrays inside schemas.
 */
export function collectExamples(validator: SpecValidator): DocumentedExample[] {
  const found: DocumentedExample[] = [];
  const visit = (node: unknown, pointer: string, key: string | undefined, parentKey: string | undefined) => {
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries())
        visit(item, joinPointer(pointer, String(index)), String(index), key);
      return;
    }
    if (!isObject(node)) return;
    const hasSchema = isObject(node.schema) && parentKey !== 'properties';
    if (hasSchema && !('$ref' in node) && key !== 'properties') {
      const schemaPointer = joinPointer(pointer, 'schema');
      const mediaType = parentKey === 'content' ? key : undefined;
      if ('example' in node)
        found.push({
          pointer: joinPointer(pointer, 'example'),
          schemaPointer,
          value: node.example,
          mediaType,
        });
      if (isObject(node.examples)) {
        for (const [name, raw] of Object.entries(node.examples)) {
          const example = validator.resolve({ node: raw, pointer: joinPointer(pointer, 'examples', name) });
          if ('value' in example.node) {
            found.push({ pointer: example.pointer, schemaPointer, value: example.node.value, mediaType });
          }
        }
      }
    }
    // JSON Schema `examples` arrays (a schema object is any object with `type`, `properties`, `oneOf`…).
    if (Array.isArray(node.examples) && looksLikeSchema(node)) {
      node.examples.forEach((value, index) => {
        found.push({
          pointer: joinPointer(pointer, 'examples', String(index)),
          schemaPointer: pointer,
          value,
        });
      });
    }
    for (const [childKey, child] of Object.entries(node)) {
      if (childKey === 'example' || childKey === 'examples' || childKey === 'default' || childKey === 'const')
        continue;
      visit(child, joinPointer(pointer, childKey), childKey, key);
    }
  };
  visit(validator.document, '#', undefined, undefined);
  return found;
}

function looksLikeSchema(node: JsonObject): boolean {
  return ['type', 'properties', 'oneOf', 'anyOf', 'allOf', 'items', 'enum', 'const', '$ref', 'format'].some(
    (k) => k in node,
  );
}

/** Decodes a form body example into the object the form schema describes (all values are strings). */
export function decodeForm(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return Object.fromEntries(new URLSearchParams(value));
}

/** The value of a named example in components/examples (a starting point for stateful tests). */
export function namedExample(validator: SpecValidator, name: string): unknown {
  const examples = (validator.document.components?.examples ?? {}) as Record<string, { value?: unknown }>;
  const example = examples[name];
  if (!example || !('value' in example)) throw new Error(`No example ${name} in components/examples`);
  return structuredClone(example.value);
}

/** A named example that is a JSON object (a request body to start from). */
export function namedObjectExample(validator: SpecValidator, name: string): JsonObject {
  const value = namedExample(validator, name);
  if (!isObject(value)) throw new Error(`Example ${name} is not an object`);
  return value;
}
