import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { schemaProblems } from './helpers/spec-validator.js';

/** Sends bytes exactly as given (fetch would normalise the path). */
function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer | string,
) {
  const url = new URL(baseUrl);
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
    (resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    },
  );
}

describe('malformed and hostile requests (sqlite)', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { rateLimit: { max: 1_000_000, windowMs: 60_000 } });
    token = await server.token();
  });
  afterAll(async () => server?.close());

  const auth = () => ({ authorization: `Bearer ${token}` });

  it('answers bad JSON with 400 ApiError', async () => {
    const res = await server.call('POST', '/v1/users', {
      token,
      raw: { body: '{"name": ', contentType: 'application/json' },
    });
    expect(res.status).toBe(400);
    const empty = await server.call('POST', '/v1/users', {
      token,
      raw: { body: '', contentType: 'application/json' },
    });
    expect(empty.status).toBe(400);
    const array = await server.call('POST', '/v1/users', { token, json: [1, 2, 3] });
    expect(array.status).toBe(400);
    const nul = await server.call('POST', '/v1/users', { token, json: null });
    expect(nul.status).toBe(400);
  });

  it('answers absurdly nested JSON with 400, not a stack overflow', async () => {
    const bodies = [
      '['.repeat(200_000) + ']'.repeat(200_000),
      `{"name":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      '['.repeat(400_000),
    ];
    for (const body of bodies) {
      for (const path of ['/v1/users', '/v1/chat/integrations']) {
        const res = await server.call('POST', path, {
          token,
          raw: { body, contentType: 'application/json' },
        });
        expect(res.status).toBe(400);
      }
    }
    const fine = await server.call('POST', '/v1/groups', {
      token,
      raw: { body: '{"name":"[[[{{{ \\" ["}', contentType: 'application/json' },
    });
    expect(fine.status).toBe(201);
  });

  it('answers an unsupported content type with 415 ApiError and a missing body with 400', async () => {
    const xml = await server.call('POST', '/v1/users', {
      token,
      raw: { body: '<user/>', contentType: 'application/xml' },
    });
    expect(xml.status).toBe(415);
    const text = await server.call('POST', '/v1/users', {
      token,
      raw: { body: 'hello', contentType: 'text/plain' },
    });
    expect(text.status).toBe(415);
    const csv = await server.call('POST', '/v1/users', { token, csv: 'a,b' });
    expect(csv.status).toBe(415);
    const none = await server.call('POST', '/v1/users', { token });
    expect(none.status).toBe(400);
    const form = await server.call('POST', '/oauth/token', {
      basic: { id: server.client.clientId, secret: server.client.clientSecret },
      json: { grant_type: 'client_credentials' },
    });
    expect(form.status).toBe(415);
  });

  it('answers a body over the limit with 413 ApiError', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1_100_000), email: 'a@b.example', role: 'Admin' });
    const res = await server.call('POST', '/v1/users', {
      token,
      raw: { body: big, contentType: 'application/json' },
    });
    expect(res.status).toBe(413);
  });

  it('answers unknown routes with 404 and known paths with other methods with 405 + Allow', async () => {
    const unknown = await server.call('GET', '/v2/everything', { token });
    expect(unknown.status).toBe(404);
    const method = await server.call('PATCH', '/v1/users', { token });
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toBe('GET, HEAD, POST');
    const del = await server.call('DELETE', '/oauth/token');
    expect(del.status).toBe(405);
  });

  it('survives weird paths, encodings and unicode', async () => {
    const paths = [
      '/v1/users/%E0%A4%A',
      '/v1/users/%00',
      '/v1/users/1%2F2',
      '/v1/users/%F0%9F%98%80',
      '/v1/users?limit=%zz',
      `/v1/${'a'.repeat(5000)}`,
      '/v1/users/../../etc/passwd',
      '/v1/chat/channels/%E2%80%AE%F0%9F%92%A9/messages',
      '/v1/users?limit=1&limit=2',
      '//v1//users',
      '/v1/users/9999999999999999999999999',
    ];
    for (const path of paths) {
      const res = await rawRequest(server.baseUrl, 'GET', path, auth());
      expect(res.status, `${path} → ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${path} → ${res.text}`).toBeLessThan(500);
      expect(schemaProblems('ApiError', JSON.parse(res.text)), path).toEqual([]);
    }
  });

  it('survives unicode and odd values in bodies', async () => {
    const res = await server.call('POST', '/v1/users', {
      token,
      json: { name: 'Zoë 🚀 \u202e', email: 'zoe@example.com', role: 'Participant', location: '東京' },
    });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Zoë 🚀 \u202e');
    const odd = await server.call('POST', '/v1/users', {
      token,
      json: { name: { nested: true }, email: 12, role: ['Admin'], employeeNumber: 1e30 },
    });
    expect(odd.status).toBe(400);
    const proto = await server.call('POST', '/v1/groups', {
      token,
      raw: { body: '{"__proto__":{"x":1},"name":"P"}', contentType: 'application/json' },
    });
    expect(proto.status).toBeLessThan(500);
  });

  it('rejects a request whose Content-Length lies', async () => {
    const res = await rawRequest(
      server.baseUrl,
      'POST',
      '/v1/users',
      { ...auth(), 'content-type': 'application/json', 'content-length': '5' },
      '{"a":1,"b":2}',
    );
    expect(res.status).toBeLessThan(500);
  });
});

describe('rate limiting (sqlite)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { rateLimit: { max: 5, windowMs: 60_000 } });
  });
  afterAll(async () => server?.close());

  it('answers 429 ApiError with Retry-After once a client exceeds its budget, and recovers after the window', async () => {
    const token = await server.token(['user']);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await server.call('GET', '/v1/users', { token })).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    const limited = await server.call('GET', '/v1/users', { token });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    server.clock.advance(60_000);
    expect((await server.call('GET', '/v1/users', { token })).status).toBe(200);
  });
});

describe('NUL characters and shutdown (sqlite)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => server?.close());

  it('refuses NUL characters in the shape of the operation (ApiError, or OAuthError at the token endpoint)', async () => {
    const token = await server.token();
    const user = await server.call('POST', '/v1/users', {
      token,
      json: { name: 'a\u0000b', email: 'n@example.com', role: 'Admin' },
    });
    expect(user.status).toBe(400);
    expect(user.body.details).toEqual([{ field: 'body.name', message: 'must not contain NUL characters' }]);
    const tokenRes = await server.call('POST', '/oauth/token', {
      basic: { id: server.client.clientId, secret: server.client.clientSecret },
      form: { grant_type: 'client_credentials', scope: 'user\u0000' },
    });
    expect(tokenRes.status).toBe(400);
    expect(tokenRes.body.error).toBe('invalid_request');
  });

  it('turns liveness and readiness to 503 once shutdown begins', async () => {
    expect((await server.call('GET', '/healthz')).status).toBe(200);
    server.platform.beginShutdown();
    const health = await server.call('GET', '/healthz');
    expect(health.status).toBe(503);
    const ready = await server.call('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('unavailable');
  });
});
