// Rules of a request that its schemas cannot state, written in the spec as extensions
// (spec/platform/README.md). `x-required-in-one-of` on an operation, `{ grant_type: [query, body] }`: the
// request carries each named field in at least one of the places, a query parameter or a field of its form
// or JSON body. Read here once for every reader: the contract suite (what to expect) and the mock (what to
// answer).
import { isObject } from './openapi.js';
import type { Operation } from './validator.js';

/** A request as far as these rules look at it: its query, and its body parsed (a form as an object). */
export interface RequestFields {
  query: URLSearchParams;
  body: unknown;
}

/** The broken `x-required-in-one-of` rule of the operation ("grant_type is in none of query, body"), if any. */
export function missingRequiredInOneOf(operation: Operation, request: RequestFields): string | undefined {
  const rule = operation.node['x-required-in-one-of'];
  if (!isObject(rule)) return undefined;
  for (const [name, places] of Object.entries(rule)) {
    const locations = Array.isArray(places) ? places.map(String) : [];
    const present = locations.some((location) =>
      location === 'query'
        ? request.query.has(name)
        : location === 'body' && isObject(request.body) && name in request.body,
    );
    if (!present) return `${name} is in none of ${locations.join(', ')} (x-required-in-one-of)`;
  }
  return undefined;
}

/** A request body as these rules read it: a form as an object of its fields, JSON parsed, else undefined. */
export function parseRequestBody(contentType: string, text: string): unknown {
  if (contentType.startsWith('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(text));
  if (/[/+]json\b/.test(contentType)) {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
