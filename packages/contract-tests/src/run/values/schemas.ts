// Schemas as the generators read them: `$ref` resolved, `allOf` folded, the types a node allows; and the
// schema of an operation's request body.

import {
  isObject,
  type JsonObject,
  joinPointer,
  type Located,
  type Operation,
  type SpecValidator,
} from '@platform-api/validator';

export const MAX_DEPTH = 4;
export const MAX_ARRAY = 4;

export function resolveSchema(validator: SpecValidator, schema: Located<unknown>): Located {
  let located = schema as Located;
  for (let hops = 0; hops < 10 && isObject(located.node) && typeof located.node.$ref === 'string'; hops++) {
    located = validator.resolve(located);
  }
  return isObject(located.node) ? located : { node: {}, pointer: located.pointer };
}

export const child = (located: Located, ...tokens: string[]): Located<unknown> => ({
  node: tokens.reduce<unknown>(
    (node, token) => (isObject(node) || Array.isArray(node) ? (node as JsonObject)[token] : undefined),
    located.node,
  ),
  pointer: joinPointer(located.pointer, ...tokens),
});

export function typesOf(node: JsonObject): string[] {
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
export function folded(validator: SpecValidator, located: Located): Located {
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

/** The schema of an operation's request body: its JSON (or form) media type, else the first one. */
export function requestBodySchema(
  operation: Operation,
): { mediaType: string; schema: Located<unknown> } | undefined {
  const body = operation.requestBody;
  if (!body) return undefined;
  const types = Object.keys(body.content);
  const mediaType =
    types.find((type) => type.includes('json')) ??
    types.find((type) => type === 'application/x-www-form-urlencoded') ??
    types[0];
  const schema = mediaType === undefined ? undefined : requestMediaSchema(operation, mediaType);
  return mediaType === undefined || schema === undefined ? undefined : { mediaType, schema };
}

/** The schema of an operation's request body in one media type, if it takes that one. */
export function requestMediaSchema(operation: Operation, mediaType: string): Located<unknown> | undefined {
  const body = operation.requestBody;
  const media = body?.content[mediaType];
  if (!body || media?.schema === undefined) return undefined;
  return { node: media.schema, pointer: joinPointer(body.pointer, 'content', mediaType, 'schema') };
}

/**
 * The properties of the JSON body an operation answers with `status` (its own and its allOf branches'),
 * but those it declares never present.
 */
export function responseProperties(
  validator: SpecValidator,
  operation: Operation,
  status: number,
): JsonObject {
  const response = operation.responses[String(status)];
  const media = isObject(response?.content) ? response.content['application/json'] : undefined;
  if (!isObject(media) || media.schema === undefined) return {};
  const own = resolveSchema(validator, { node: media.schema, pointer: '' });
  const schema = folded(validator, own);
  const properties = isObject(schema.node.properties) ? schema.node.properties : {};
  // `false` beside an allOf: the branch's property is never present in this answer (a create's).
  const never = isObject(own.node.properties) ? own.node.properties : {};
  return Object.fromEntries(Object.entries(properties).filter(([name]) => never[name] !== false));
}

/** A schema's `x-state` declarations (`$ref` followed), or none. */
export function stateOf(validator: SpecValidator, schema: unknown): JsonObject {
  const state = validator.resolve({ node: schema, pointer: '' }).node['x-state'];
  return isObject(state) ? state : {};
}
