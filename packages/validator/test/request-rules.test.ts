// The request rules the spec writes as extensions, read once for the mock and the contract suite.
import { describe, expect, it } from 'vitest';
import { getByPointer, loadBundle, recordsRuleOf, SpecValidator } from '../src/index.js';

describe('recordsRuleOf', () => {
  const bundle = loadBundle('platform');
  const validator = new SpecValidator(bundle);
  const importData = validator.operation('importDatasetData');
  const body = importData.requestBody?.content['text/csv'];
  const schema = validator.resolve({
    node: body?.schema,
    pointer: `${importData.pointer}/requestBody/content/text~1csv/schema`,
  });

  it("reads the CSV body's x-state records: columns, type member, a field schema per column type", () => {
    const rule = recordsRuleOf(schema);
    expect(rule?.columns).toBe('/schema/columns');
    expect(rule?.type).toBe('type');
    expect([...(rule?.fields.keys() ?? [])].sort()).toEqual(
      ['DATE', 'DATETIME', 'DECIMAL', 'DOUBLE', 'LONG', 'STRING'].sort(),
    );
  });

  it('gives each field schema a pointer that finds it in the document (the mock compiles it there)', () => {
    for (const [, field] of recordsRuleOf(schema)?.fields ?? [])
      expect(getByPointer(bundle, field.pointer)).toEqual(field.node);
  });

  it('is undefined for a schema without the rule, and ignores a field that is no schema', () => {
    expect(recordsRuleOf({ node: { type: 'string' }, pointer: '#/x' })).toBeUndefined();
    const rule = recordsRuleOf({
      node: { 'x-state': { records: { columns: '/c', type: 't', fields: { A: { type: 'string' }, B: 1 } } } },
      pointer: '#/x',
    });
    expect([...(rule?.fields.keys() ?? [])]).toEqual(['A']);
    expect(rule?.fields.get('constructor')).toBeUndefined();
  });
});
