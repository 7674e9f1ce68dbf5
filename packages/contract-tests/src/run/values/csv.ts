// CSV representations (RFC 4180): records the spec's `x-state: {records}` says an item takes, written and
// read back.
import { getByPointer, isObject, type JsonObject, type SpecValidator } from '@platform-api/validator';
import fc from 'fast-check';
import { resolveSchema } from './schemas.js';
import { strings } from './strings.js';

/** `x-state: {records: {columns, type, fields}}` of a CSV body's schema: what a record of an item is. */
export interface RecordsRule {
  /** Where the item holds its columns (`/schema/columns`). */
  columns: string;
  /** The member of a column naming its type. */
  type: string;
  /** A field's schema by column type. */
  fields: Record<string, JsonObject>;
}

export function recordsRule(validator: SpecValidator, schema: { node: unknown; pointer: string }) {
  const state = resolveSchema(validator, schema).node['x-state'];
  const records = isObject(state) ? state.records : undefined;
  if (!isObject(records) || typeof records.columns !== 'string' || typeof records.type !== 'string')
    return undefined;
  const fields = isObject(records.fields) ? records.fields : {};
  return {
    columns: records.columns,
    type: records.type,
    fields: Object.fromEntries(Object.entries(fields).filter(([, node]) => isObject(node))),
  } as RecordsRule;
}

/**
 * Records that fit `item` by `rule`: one to three, a field per column, each a text its type allows (some
 * empty). Undefined when the item shows no columns or a column's type has no field schema.
 */
export function fittingRecords(rule: RecordsRule, item: unknown): fc.Arbitrary<string[][]> | undefined {
  const columns = getByPointer(item, rule.columns);
  if (!Array.isArray(columns) || columns.length === 0) return undefined;
  const fields: fc.Arbitrary<string>[] = [];
  for (const column of columns) {
    const type = isObject(column) ? column[rule.type] : undefined;
    const schema = typeof type === 'string' ? rule.fields[type] : undefined;
    if (!schema) return undefined;
    fields.push(fc.oneof({ arbitrary: strings(schema, { allowNul: false }), weight: 9 }, fc.constant('')));
  }
  return fc.array(fc.tuple(...fields), { minLength: 1, maxLength: 3 });
}
