import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { doc } from './helpers/spec-validator.js';

// No operation is deprecated today: the test deprecates getUser in its own copy of the bundle, the way
// spec/README.md ("Versions") says an operation is deprecated.
describe('a deprecated operation (sqlite)', () => {
  let server: TestServer;
  beforeAll(async () => {
    const edited = structuredClone(doc);
    Object.assign(edited.paths['/v1/users/{id}'].get, {
      deprecated: true,
      'x-deprecated-since': '2026-11-01',
      'x-sunset': '2027-06-01',
    });
    server = await startTestServer('sqlite', {}, { doc: edited });
  });
  afterAll(async () => server?.close());

  it('answers with Deprecation and Sunset, errors included; other operations without', async () => {
    const token = await server.token();
    for (const path of ['/v1/users/1', '/v1/users/424242']) {
      const res = await server.call('GET', path, { token });
      expect(res.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 10, 1) / 1000}`);
      expect(res.headers.get('sunset')).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
    }
    const list = await server.call('GET', '/v1/users', { token });
    expect(list.headers.get('deprecation')).toBeNull();
    expect(list.headers.get('sunset')).toBeNull();
  });
});
