import { resolveLocal } from '@platform-api/validator';
import { expect, it } from 'vitest';
import { describeEachDialect } from './helpers/databases.js';
import type { TestServer } from './helpers/server.js';
import { doc, operations } from './helpers/spec-validator.js';
import { unlimitedServerForSuite } from './helpers/unlimited-server.js';

/*
 * An integer parameter is an optional `-` and decimal digits. Spellings that JavaScript's Number() reads
 * as a number but that are not integers in the spec's sense are refused with a 400 naming the parameter —
 * for every integer path and query parameter of the bundle (each other path parameter is `1`).
 */

const LOOSE_SPELLINGS = [' 1', '+1', '1e3', '1.0', '0x1', '0b1'];

const integerParameters = operations.flatMap((op) =>
  op.parameters
    .map((p) => p.node)
    .filter((p) => p.in === 'path' || p.in === 'query')
    .filter(
      (p) =>
        resolveLocal<{ type?: unknown }>(doc as never, { node: p.schema, pointer: '' }).node.type ===
        'integer',
    )
    .map((p) => ({ op, location: p.in as 'path' | 'query', name: p.name })),
);

it('the bundle has integer path and query parameters to check', () => {
  expect(integerParameters.map((p) => p.location).sort()).toEqual(expect.arrayContaining(['path', 'query']));
});

describeEachDialect('integer parameters spelled otherwise are 400 (%s)', (dialect) => {
  let server: TestServer;
  let token: string;
  unlimitedServerForSuite(dialect, (suite) => {
    ({ server, token } = suite);
  });

  for (const { op, location, name } of integerParameters) {
    it(`${op.operationId}: ${location} ${name}`, async () => {
      for (const spelling of LOOSE_SPELLINGS) {
        const value = encodeURIComponent(spelling);
        let path = op.path.replace(`{${name}}`, location === 'path' ? value : '1').replace(/\{[^}]+\}/g, '1');
        if (location === 'query') path += `?${name}=${value}`;
        const res = await server.call(op.method.toUpperCase(), path, { token });
        expect(res.status, `${op.method.toUpperCase()} ${path}`).toBe(400);
        expect(res.body.details, `${op.method.toUpperCase()} ${path}`).toContainEqual({
          field: `${location}.${name}`,
          message: 'must be an integer: an optional - and decimal digits',
        });
      }
      // The same parameter spelled as an integer passes this check (whatever the operation answers then).
      let path = op.path.replace(/\{[^}]+\}/g, '1');
      if (location === 'query') path += `?${name}=1`;
      const res = await server.call(op.method.toUpperCase(), path, { token });
      expect(res.body?.details ?? []).not.toContainEqual(
        expect.objectContaining({ field: `${location}.${name}` }),
      );
    });
  }
});
