// Rules of a request that its schemas cannot state, written in the spec as extensions
// (spec/platform/README.md). Read here once for every reader: the contract suite (what to expect and what
// to send) and the mock (what to answer).
// - `x-required-in-one-of` on an operation, `{ grant_type: [query, body] }`: the request carries each named
//   field in at least one of the places, a query parameter or a field of its form or JSON body.
// - `x-state: {records: {columns, type, fields}}` on a CSV body's schema: a record the item takes has one
//   field per column the item lists at `columns`, each empty or a text the schema under `fields` for its
//   column's `type` allows.
import { isObject, joinPointer, type Located } from './openapi.js';
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

/** What a CSV record of an item is, by `x-state: {records}`. */
export interface RecordsRule {
  /** Where the item lists its columns (a JSON pointer: `/schema/columns`). */
  columns: string;
  /** The member of a column that names its type. */
  type: string;
  /** A field's schema by column type, with its pointer in the document. */
  fields: Map<string, Located>;
}

/** The `x-state: {records}` rule of a body's schema (already resolved), if it has one. */
export function recordsRuleOf(schema: Located<unknown>): RecordsRule | undefined {
  const state = isObject(schema.node) ? schema.node['x-state'] : undefined;
  const records = isObject(state) ? state.records : undefined;
  if (!isObject(records) || typeof records.columns !== 'string' || typeof records.type !== 'string')
    return undefined;
  const fields = new Map<string, Located>();
  for (const [type, node] of Object.entries(isObject(records.fields) ? records.fields : {}))
    if (isObject(node))
      fields.set(type, { node, pointer: joinPointer(schema.pointer, 'x-state', 'records', 'fields', type) });
  return { columns: records.columns, type: records.type, fields };
}
