// Rules of a request that its schemas cannot express, read from the spec's own extensions (documented in
// spec/platform/README.md), so that a request every schema allows is not taken for valid when the spec
// says in these words that the server refuses it:
//   x-required-in-one-of (on an operation): `{ grant_type: [query, body] }` — the request carries the
//     field in at least one of the places (read by the validator package: missingRequiredInOneOf);
//   x-public-host (on a URL string schema): the server refuses a URL whose host does not resolve to a
//     public address (its SSRF guard). Whether it accepts one depends on its DNS and its deployment's
//     allow-list, which the suite cannot know: such a request is judged neither valid nor invalid;
//   x-state: {records} (on a CSV body's string schema): a record's fields fit the columns of the item the
//     request names, which a request alone does not show (writes.ts writes records that fit, and some
//     that do not, to items it has read): such a body is judged neither valid nor invalid.
import {
  isJsonMediaType,
  isObject,
  type Located,
  matchMediaType,
  missingRequiredInOneOf,
  type Operation,
  parseRequestBody,
  type SpecValidator,
} from '@platform-api/validator';
import type { SentRequest } from '../client.js';
import { recordsRule } from './values/csv.js';
import { requestMediaSchema } from './values/schemas.js';

/**
 * What the spec says against a request its schemas allow: that the server refuses it (`certain`), or that it
 * may (the target decides: x-public-host); undefined when it says nothing against it.
 */
export function documentedRefusal(
  validator: SpecValidator,
  operation: Operation,
  request: SentRequest,
): { certain: boolean; reason: string } | undefined {
  const text =
    request.body === undefined
      ? undefined
      : typeof request.body === 'string'
        ? request.body
        : Buffer.from(request.body).toString('utf8');
  const body = text === undefined ? undefined : parseRequestBody(request.headers['content-type'] ?? '', text);
  const missing = missingRequiredInOneOf(operation, { query: new URL(request.url).searchParams, body });
  if (missing) return { certain: true, reason: missing };
  if (text !== undefined && recordsBody(validator, operation, request.headers['content-type'] ?? ''))
    return { certain: false, reason: "whether its records fit the item's columns (x-state: {records})" };
  const schema = bodySchema(operation);
  if (schema && body !== undefined) {
    const [target] = publicHostValues(validator, schema, body);
    if (target !== undefined)
      return { certain: false, reason: `whether the target accepts the host of ${target} (x-public-host)` };
  }
  return undefined;
}

function bodySchema(operation: Operation): Located<unknown> | undefined {
  const json = Object.keys(operation.requestBody?.content ?? {}).find(isJsonMediaType);
  return json === undefined ? undefined : requestMediaSchema(operation, json);
}

/** Whether the body of the request's media type is records an item's columns decide (x-state: {records}). */
function recordsBody(validator: SpecValidator, operation: Operation, contentType: string): boolean {
  const mediaType = matchMediaType(Object.keys(operation.requestBody?.content ?? {}), contentType);
  const schema = mediaType === undefined ? undefined : requestMediaSchema(operation, mediaType);
  return schema !== undefined && recordsRule(validator, schema) !== undefined;
}

/** The strings of `value` that stand where the schema (or a branch of it) is marked `x-public-host`. */
function publicHostValues(validator: SpecValidator, schema: Located<unknown>, value: unknown): string[] {
  const { node, pointer } = validator.resolve(schema as Located);
  if (node['x-public-host'] === true) return typeof value === 'string' ? [value] : [];
  const found: string[] = [];
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (Array.isArray(branches))
      branches.forEach((branch, index) => {
        found.push(
          ...publicHostValues(validator, { node: branch, pointer: `${pointer}/${keyword}/${index}` }, value),
        );
      });
  }
  if (isObject(value) && isObject(node.properties)) {
    for (const [name, property] of Object.entries(node.properties)) {
      if (name in value)
        found.push(
          ...publicHostValues(
            validator,
            { node: property, pointer: `${pointer}/properties/${name}` },
            value[name],
          ),
        );
    }
  }
  if (Array.isArray(value) && node.items !== undefined) {
    for (const item of value)
      found.push(...publicHostValues(validator, { node: node.items, pointer: `${pointer}/items` }, item));
  }
  return found;
}
