import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from './helpers/databases.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { operations } from './helpers/spec-validator.js';

/*
 * Every operation of the spec, hit with junk: odd path parameters, bodies of the wrong shape and type,
 * no credentials. Each answer must be documented for the operation (checked by the api helper) and never 5xx.
 */

const JUNK_SEGMENTS = ['0', '-1', '1.5', 'x', '%F0%9F%92%A9', '%00', `${'9'.repeat(30)}`, 'a'.repeat(150)];
const JUNK_BODIES: unknown[] = [
  {},
  [],
  'text',
  42,
  null,
  { a: { b: [1, { c: null }] } },
  { name: 1, email: [], role: {} },
];

const dialects = await testDialects();

describe.each(dialects)('every operation survives junk on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer(dialect, { rateLimit: { max: 0, windowMs: 60_000 } });
    token = await server.token();
  });
  afterAll(async () => server?.close());

  for (const op of operations) {
    it(`${op.operationId} (${op.method} ${op.path})`, async () => {
      const paths = JUNK_SEGMENTS.map((segment) => op.path.replace(/\{[^}]+\}/g, segment));
      for (const path of paths) {
        const noAuth = await server.call(op.method, path);
        expect(noAuth.status).toBeLessThan(500);
        for (const json of JUNK_BODIES) {
          const res = await server.call(
            op.method,
            path,
            op.method === 'GET' || op.method === 'DELETE' ? { token } : { token, json },
          );
          expect(res.status).toBeLessThan(500);
        }
        const junkQuery = await server.call(
          op.method,
          `${path}?limit=-5&offset=x&sendInvite=perhaps&scope=%00&includeHeader=2`,
          { token },
        );
        expect(junkQuery.status).toBeLessThan(500);
      }
    });
  }
});
