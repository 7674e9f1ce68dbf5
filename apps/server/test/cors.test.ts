import { rawHttpRequest } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { schemaProblems } from './helpers/spec-validator.js';

// The docs' try-it console (a page on another port) calls the server from a browser: CORS for the
// configured origins, nothing for the others, and OPTIONS without a preflight's headers answered as before.
describe('CORS for the docs console (sqlite)', () => {
  const docs = 'http://localhost:4000';
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { corsOrigins: [docs] });
    token = await server.token();
  });
  afterAll(async () => server?.close());

  const preflight = (origin: string) =>
    rawHttpRequest(server.baseUrl, 'OPTIONS', '/v1/users', {
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization',
    });

  it('answers a preflight from a configured origin, and lets it read the answer and its documented headers', async () => {
    const answer = await preflight(docs);
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe(docs);
    expect(String(answer.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');

    const users = await rawHttpRequest(server.baseUrl, 'GET', '/v1/users', {
      origin: docs,
      authorization: `Bearer ${token}`,
    });
    expect(users.status).toBe(200);
    expect(users.headers['access-control-allow-origin']).toBe(docs);
    const exposed = String(users.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
    expect(exposed).toContain('ratelimit-remaining');

    const refused = await rawHttpRequest(server.baseUrl, 'GET', '/v1/users', { origin: docs });
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(docs);
    expect(schemaProblems('ApiError', JSON.parse(refused.text))).toEqual([]);
  });

  it('lets a configured origin send every method the spec uses, with the headers it asks for', async () => {
    const answer = await rawHttpRequest(server.baseUrl, 'OPTIONS', '/v1/users/1', {
      origin: docs,
      'access-control-request-method': 'DELETE',
      'access-control-request-headers': 'authorization, x-custom',
    });
    expect(answer.status).toBe(204);
    const methods = String(answer.headers['access-control-allow-methods']).split(/,\s*/);
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE']) expect(methods).toContain(method);
    expect(answer.headers['access-control-allow-headers']).toBe('authorization, x-custom');
    expect(answer.headers['access-control-max-age']).toBe('600');
    expect(String(answer.headers.vary)).toContain('Origin');
  });

  it('marks every answer as varying by Origin, a request without one included', async () => {
    const answer = await rawHttpRequest(server.baseUrl, 'GET', '/healthz', {});
    expect(answer.status).toBe(200);
    expect(answer.headers.vary).toBe('Origin');
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('grants nothing to another origin', async () => {
    const answer = await preflight('http://evil.example');
    expect(answer.status).toBe(405);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(schemaProblems('ApiError', JSON.parse(answer.text))).toEqual([]);
    const users = await rawHttpRequest(server.baseUrl, 'GET', '/v1/users', {
      origin: 'http://evil.example',
      authorization: `Bearer ${token}`,
    });
    expect(users.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers OPTIONS that is no preflight with 405 and Allow, as any method a path does not offer', async () => {
    for (const headers of [{}, { origin: docs }] as Record<string, string>[]) {
      const answer = await rawHttpRequest(server.baseUrl, 'OPTIONS', '/v1/users', headers);
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe('GET, HEAD, POST');
      expect(schemaProblems('ApiError', JSON.parse(answer.text))).toEqual([]);
    }
  });
});
