// What the spec documents of an operation as arguments (parameters and body properties), and which of
// them the spec's version marks say a target of a given version lacks.

import {
  isObject,
  type JsonObject,
  joinPointer,
  type OpenApiDocument,
  type Operation,
  resolveLocal,
  type SpecValidator,
} from '@platform-api/validator';
import { olderThan, wpBeforeFor, wpNoRoute, wpSince } from '../versions.js';

export interface SpecArgument {
  schema: unknown;
  required: boolean;
  inPath: boolean;
  /** The nodes that may carry version marks: the parameter and its schema, or the property's schemas. */
  marks: unknown[];
}

/**
 * Why a target of this version lacks what these nodes describe, when their marks say it should
 * (`x-wp-no-route`; `x-wp-since` newer than the version; `x-wp-before` with no schema); undefined when it
 * should have it.
 */
export function absenceReason(marks: unknown, version: string | undefined): string | undefined {
  for (const node of Array.isArray(marks) ? marks : [marks]) {
    if (wpNoRoute(node)) return 'x-wp-no-route';
    if (version === undefined) continue;
    const since = wpSince(node);
    if (since && olderThan(version, since)) return `x-wp-since ${since}`;
    // An `x-wp-before` entry without a schema: versions before it lack the thing.
    const older = wpBeforeFor(node, version);
    if (older && older.schema === undefined) return `x-wp-before ${older.version}`;
  }
  return undefined;
}

/**
 * The arguments an operation documents: path and query parameters, and for writes the properties
 * of every object-shaped request body (JSON, form, multipart).
 */
export function specArguments(validator: SpecValidator, operation: Operation): Map<string, SpecArgument> {
  const document = validator.document;
  const args = new Map<string, SpecArgument>();
  for (const parameter of operation.parameters) {
    const { node } = parameter;
    if (node.in !== 'path' && node.in !== 'query') continue;
    args.set(String(node.name), {
      schema: node.schema ?? {},
      required: node.required === true || node.in === 'path',
      inPath: node.in === 'path',
      marks: [node, resolveSchema(document, node.schema)],
    });
  }
  if (operation.node.requestBody === undefined) return args;
  const body = resolveLocal(document, {
    node: operation.node.requestBody,
    pointer: joinPointer(operation.pointer, 'requestBody'),
  });
  const content = isObject(body.node.content) ? body.node.content : {};
  for (const media of Object.values(content)) {
    if (!isObject(media) || media.schema === undefined) continue;
    const { properties, required } = objectProperties(document, media.schema);
    for (const [name, schemas] of properties) {
      if (args.has(name)) continue;
      const required_ = body.node.required === true && required.has(name);
      args.set(name, {
        schema: { allOf: schemas },
        required: required_,
        inPath: false,
        marks: schemas.map((schema) => resolveSchema(document, schema)),
      });
    }
  }
  return args;
}

/**
 * Properties (and required names) of an object schema, through `$ref` and `allOf`; a property that
 * several `allOf` members describe (a type in one, a default in another) keeps all its schemas, in order.
 */
function objectProperties(
  document: OpenApiDocument,
  raw: unknown,
): { properties: Map<string, unknown[]>; required: Set<string> } {
  const properties = new Map<string, unknown[]>();
  const required = new Set<string>();
  const visit = (node: unknown) => {
    const schema = resolveSchema(document, node);
    if (!schema) return;
    if (Array.isArray(schema.allOf)) for (const part of schema.allOf) visit(part);
    if (isObject(schema.properties)) {
      for (const [name, property] of Object.entries(schema.properties)) {
        properties.set(name, [...(properties.get(name) ?? []), property]);
      }
    }
    if (Array.isArray(schema.required)) for (const name of schema.required) required.add(String(name));
  };
  visit(raw);
  return { properties, required };
}

export function resolveSchema(document: OpenApiDocument, node: unknown): JsonObject | undefined {
  if (!isObject(node)) return undefined;
  return resolveLocal(document, { node, pointer: '' }).node;
}
