// CSV representations (RFC 4180): records the spec's `x-state: {records}` says an item takes, written and
// read back.
import {
  getByPointer,
  isObject,
  type Located,
  type RecordsRule,
  recordsRuleOf,
  type SpecValidator,
} from '@platform-api/validator';
import fc from 'fast-check';
import { resolveSchema } from './schemas.js';
import { strings } from './strings.js';

/** The `x-state: {records}` rule of a CSV body's schema, its references followed. */
export function recordsRule(validator: SpecValidator, schema: Located<unknown>): RecordsRule | undefined {
  return recordsRuleOf(resolveSchema(validator, schema));
}

/** A column of an item: its type, and the schema its fields keep to (`x-state: {records}`). */
export interface ColumnField {
  type: string;
  schema: Located;
}

/**
 * The columns `item` lists by `rule`, in order, each with its field schema. Undefined when the item shows
 * no columns or a column's type has no field schema.
 */
export function columnFields(rule: RecordsRule, item: unknown): ColumnField[] | undefined {
  const columns = getByPointer(item, rule.columns);
  if (!Array.isArray(columns) || columns.length === 0) return undefined;
  const fields: ColumnField[] = [];
  for (const column of columns) {
    const type = isObject(column) ? column[rule.type] : undefined;
    const schema = typeof type === 'string' ? rule.fields.get(type) : undefined;
    if (typeof type !== 'string' || !schema) return undefined;
    fields.push({ type, schema });
  }
  return fields;
}

/** Records that fit columns: one to three, a field per column, each a text its type allows (some empty). */
export function fittingRecords(columns: readonly ColumnField[]): fc.Arbitrary<string[][]> {
  const fields = columns.map(({ schema }) =>
    fc.oneof({ arbitrary: strings(schema.node, { allowNul: false }), weight: 9 }, fc.constant('')),
  );
  return fc.array(fc.tuple(...fields), { minLength: 1, maxLength: 3 });
}

/**
 * A field of the wrong type for `column`: a text another column type of `rule` allows and `column`'s does
 * not (a date in a LONG column), drawn by `seed`. Undefined when every other type's texts fit it (STRING).
 */
export function wrongTypedField(
  validator: SpecValidator,
  rule: RecordsRule,
  column: ColumnField,
  seed: number,
): { value: string; type: string } | undefined {
  const misfits: Array<{ value: string; type: string }> = [];
  for (const [type, schema] of rule.fields) {
    if (type === column.type) continue;
    for (const value of fc.sample(strings(schema.node, { allowNul: false }), { numRuns: 8, seed }))
      if (value !== '' && validator.validateAt(column.schema.pointer, value).length > 0)
        misfits.push({ value, type });
  }
  return misfits[Math.abs(seed) % Math.max(1, misfits.length)];
}
