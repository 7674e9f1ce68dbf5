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
    const schema = typeof type === 'string' ? rule.fields.get(type) : undefined;
    if (!schema) return undefined;
    fields.push(
      fc.oneof({ arbitrary: strings(schema.node, { allowNul: false }), weight: 9 }, fc.constant('')),
    );
  }
  return fc.array(fc.tuple(...fields), { minLength: 1, maxLength: 3 });
}
