// update_persisted compares what a change sent with what a read shows: only the fields the body's schema
// declares and the read shows, date-times by their instant, and never a value the read's schema could not
// hold as sent (a lenient "true" read back as true).
import { describe, expect, it } from 'vitest';
import { type OpenApiDocument, SpecValidator } from '../src/index.js';
import { sameValue, unstoredFields } from '../src/run/phases/writes.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'things', version: '1' },
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'the thing',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id'],
                  properties: {
                    id: { type: 'string' },
                    name: { type: 'string' },
                    active: { type: 'boolean' },
                    due: { type: 'string', format: 'date-time' },
                    tags: { type: 'array', items: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as unknown as OpenApiDocument;

describe('update_persisted', () => {
  const validator = new SpecValidator(document);
  const read = (json: unknown) => ({
    operation: validator.operation('getThing'),
    status: 200,
    headers: new Headers({ 'content-type': 'application/json' }),
    json,
  });
  const declared = new Set(['name', 'active', 'due', 'tags', 'note']);

  it('names each field the read shows otherwise than it was sent', () => {
    const stored = { id: 'a', name: 'Old', active: true, tags: ['x'] };
    expect(
      unstoredFields({ validator }, read(stored), { name: 'New', active: true, tags: ['x', 'y'] }, declared),
    ).toEqual(['name reads "Old" where "New" was sent', 'tags reads ["x"] where ["x","y"] was sent']);
  });

  it('holds when the read shows what was sent, a date-time written another way included', () => {
    const stored = { id: 'a', name: 'New', due: '2026-01-02T03:04:05.000Z' };
    expect(
      unstoredFields(
        { validator },
        read(stored),
        { name: 'New', due: '2026-01-02T04:04:05+01:00' },
        declared,
      ),
    ).toEqual([]);
  });

  it('leaves out what it cannot compare: undeclared fields, fields the read lacks, converted values', () => {
    const stored = { id: 'a', name: 'New', active: true };
    const sent = { name: 'New', active: 'true', note: 'not shown', extra: 'undeclared' };
    expect(unstoredFields({ validator }, read(stored), sent, declared)).toEqual([]);
    expect(unstoredFields({ validator }, read(stored), { id: 'b' }, declared)).toEqual([]);
  });

  it('compares JSON values deeply, objects by their members whatever the order', () => {
    expect(sameValue({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameValue({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameValue('2026-01-02', '2026-01-02T00:00:00Z')).toBe(false);
  });
});
