import { rawHttpRequest } from '@platform-api/test-support';
import { expect, it } from 'vitest';
import { describeEachDialect } from './helpers/databases.js';
import type { TestServer } from './helpers/server.js';
import { operations } from './helpers/spec-validator.js';
import { unlimitedServerForSuite } from './helpers/unlimited-server.js';

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

describeEachDialect('every operation survives junk on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  unlimitedServerForSuite(dialect, (suite) => {
    ({ server, token } = suite);
  });

  for (const op of operations) {
    it(`${op.operationId} (${op.method.toUpperCase()} ${op.path})`, async () => {
      const paths = JUNK_SEGMENTS.map((segment) => op.path.replace(/\{[^}]+\}/g, segment));
      for (const path of paths) {
        const noAuth = await server.call(op.method.toUpperCase(), path);
        expect(noAuth.status).toBeLessThan(500);
        for (const json of JUNK_BODIES) {
          const res = await server.call(
            op.method.toUpperCase(),
            path,
            op.method.toUpperCase() === 'GET' || op.method.toUpperCase() === 'DELETE'
              ? { token }
              : { token, json },
          );
          expect(res.status).toBeLessThan(500);
        }
        const junkQuery = await server.call(
          op.method.toUpperCase(),
          `${path}?limit=-5&offset=x&sendInvite=perhaps&scope=%00&includeHeader=2`,
          { token },
        );
        expect(junkQuery.status).toBeLessThan(500);
      }
    });
  }
});

// Generic HTTP clients send `Content-Type: application/json` on every request, a DELETE included, and some
// send an empty chunked body: on an operation that takes no body (or an optional one) that is no body.
describeEachDialect('an empty body is no body, whatever its Content-Type, on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  unlimitedServerForSuite(dialect, (suite) => {
    ({ server, token } = suite);
  });

  const bodiless = operations.filter((op) => !op.requestBody?.required);
  it('covers every operation without a required body', () => {
    expect(bodiless.length).toBeGreaterThan(20);
  });

  for (const op of bodiless) {
    it(`${op.operationId} (${op.method.toUpperCase()} ${op.path})`, async () => {
      // Ids that exist nowhere: the answers do not change the state, so they can be compared.
      const path = op.path.replace(/\{[^}]+\}/g, '1');
      const credentials = op.security.some((requirement) => 'basicAuth' in requirement)
        ? `Basic ${Buffer.from(`${server.client.clientId}:${server.client.clientSecret}`).toString('base64')}`
        : `Bearer ${token}`;
      const plain = await rawHttpRequest(server.baseUrl, op.method.toUpperCase(), path, {
        authorization: credentials,
      });
      const variants: Record<string, string>[] = [
        { 'content-type': 'application/json', 'content-length': '0' },
        { 'content-type': 'application/json; charset=utf-8', 'transfer-encoding': 'chunked' },
        { 'content-type': 'text/plain', 'content-length': '0' },
        { 'transfer-encoding': 'chunked' },
      ];
      for (const headers of variants) {
        const res = await rawHttpRequest(server.baseUrl, op.method.toUpperCase(), path, {
          authorization: credentials,
          ...headers,
        });
        expect(res.status, `${JSON.stringify(headers)}: ${res.text}`).toBe(plain.status);
      }
    });
  }
});
