import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from './helpers/databases.js';
import { startTestServer, type TestServer } from './helpers/server.js';

describeEachDialect('authentication on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.close());

  const basic = () => ({ id: server.client.clientId, secret: server.client.clientSecret });

  describe('token endpoint', () => {
    it('issues a token with GET and query parameters, not cacheable', async () => {
      const res = await server.call('GET', '/oauth/token?grant_type=client_credentials&scope=data%20user', {
        basic: basic(),
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        token_type: 'bearer',
        expires_in: 3599,
        scope: 'data user',
        customer: 'acme',
        role: 'Admin',
      });
      expect(typeof res.body.userId).toBe('number');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      expect(res.headers.get('expires')).toBe('0');
    });

    it('issues a token with POST and query parameters', async () => {
      const res = await server.call('POST', '/oauth/token?grant_type=client_credentials&scope=user', {
        basic: basic(),
      });
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe('user');
    });

    it('issues a token with POST and a form body, scope absent = every granted scope', async () => {
      const res = await server.call('POST', '/oauth/token', {
        basic: basic(),
        form: { grant_type: 'client_credentials' },
      });
      expect(res.status).toBe(200);
      expect(res.body.scope.split(' ').sort()).toEqual(['chat', 'data', 'user']);
    });

    it('accepts a form scope with + for spaces', async () => {
      const res = await server.call('POST', '/oauth/token', {
        basic: basic(),
        raw: {
          body: 'grant_type=client_credentials&scope=data+user',
          contentType: 'application/x-www-form-urlencoded',
        },
      });
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe('data user');
    });

    it('refuses missing or wrong client credentials with invalid_client and a Basic challenge', async () => {
      const none = await server.call('GET', '/oauth/token?grant_type=client_credentials');
      expect(none.status).toBe(401);
      expect(none.body.error).toBe('invalid_client');
      expect(none.headers.get('www-authenticate')).toMatch(/^Basic /);
      const wrong = await server.call('GET', '/oauth/token?grant_type=client_credentials', {
        basic: { id: server.client.clientId, secret: 'wrong' },
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error).toBe('invalid_client');
      const unknown = await server.call('GET', '/oauth/token?grant_type=client_credentials', {
        basic: { id: 'nobody', secret: 'x' },
      });
      expect(unknown.status).toBe(401);
      const garbage = await server.call('GET', '/oauth/token?grant_type=client_credentials', {
        headers: { authorization: 'Basic ***' },
      });
      expect(garbage.status).toBe(401);
    });

    it('answers RFC 6749 errors for bad grant parameters', async () => {
      const missing = await server.call('POST', '/oauth/token', { basic: basic() });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toBe('invalid_request');
      const missingGet = await server.call('GET', '/oauth/token', { basic: basic() });
      expect(missingGet.status).toBe(400);
      expect(missingGet.body.error).toBe('invalid_request');
      const grant = await server.call('GET', '/oauth/token?grant_type=password', { basic: basic() });
      expect(grant.status).toBe(400);
      expect(grant.body.error).toBe('unsupported_grant_type');
      const formGrant = await server.call('POST', '/oauth/token', {
        basic: basic(),
        form: { grant_type: 'password' },
      });
      expect(formGrant.status).toBe(400);
      expect(formGrant.body.error).toBe('unsupported_grant_type');
      const scope = await server.call('GET', '/oauth/token?grant_type=client_credentials&scope=admin', {
        basic: basic(),
      });
      expect(scope.status).toBe(400);
      expect(scope.body.error).toBe('invalid_scope');
      const badScope = await server.call('GET', '/oauth/token?grant_type=client_credentials&scope=DATA', {
        basic: basic(),
      });
      expect(badScope.status).toBe(400);
      expect(badScope.body.error).toBe('invalid_scope');
    });

    it('refuses a scope the client was not granted', async () => {
      const dataOnly = await server.newClient('acme', ['data']);
      const res = await server.call('GET', '/oauth/token?grant_type=client_credentials&scope=data%20user', {
        basic: { id: dataOnly.clientId, secret: dataOnly.clientSecret },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_scope', scope: 'data' });
    });
  });

  describe('bearer tokens on the API', () => {
    it('answers 401 ApiError with a Bearer challenge when the header is missing', async () => {
      const res = await server.call('GET', '/v1/users');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ status: 401, statusReason: 'Unauthorized', path: '/v1/users' });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    });

    it('answers 401 invalid_token for a malformed or unknown token', async () => {
      for (const authorization of ['Bearer not-a-token', 'Bearer ', 'bearer x y', 'Token abc']) {
        const res = await server.call('GET', '/v1/users', { headers: { authorization } });
        expect(res.status).toBe(401);
        if (authorization.startsWith('Bearer not')) {
          expect(res.body.error).toBe('invalid_token');
          expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
        }
      }
    });

    it('accepts the scheme name case-insensitively (the description writes "bearer")', async () => {
      const token = await server.token(['user']);
      const res = await server.call('GET', '/v1/users', { headers: { authorization: `bearer ${token}` } });
      expect(res.status).toBe(200);
    });

    it('expires tokens after 3599 seconds', async () => {
      const token = await server.token(['user']);
      server.clock.advance(3598_000);
      expect((await server.call('GET', '/v1/users', { token })).status).toBe(200);
      server.clock.advance(2_000);
      const res = await server.call('GET', '/v1/users', { token });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_token');
    });

    it('answers 403 insufficient_scope naming the needed scope', async () => {
      const token = await server.token(['data']);
      const res = await server.call('GET', '/v1/users', { token });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'insufficient_scope', scope: 'user' });
      expect(res.headers.get('www-authenticate')).toContain('insufficient_scope');
      const chat = await server.call('GET', '/v1/chat/integrations', { token });
      expect(chat.status).toBe(403);
      expect(chat.body.scope).toBe('chat');
      const data = await server.call('GET', '/v1/datasets', { token: await server.token(['user']) });
      expect(data.status).toBe(403);
      expect(data.body.scope).toBe('data');
    });

    it("answers another instance's ids exactly like missing ones", async () => {
      const token = await server.token();
      const created = await server.call('POST', '/v1/users', {
        token,
        json: { name: 'Ada', email: 'ada@acme.example', role: 'Participant' },
      });
      expect(created.status).toBe(201);
      const other = await server.newClient('globex', ['user', 'data', 'chat']);
      const otherToken = await server.token(undefined, other);
      const res = await server.call('GET', `/v1/users/${created.body.id}`, { token: otherToken });
      const missing = await server.call('GET', '/v1/users/999999', { token: otherToken });
      expect(res.status).toBe(404);
      expect(missing.status).toBe(404);
      expect(Object.keys(res.body).sort()).toEqual(Object.keys(missing.body).sort());
      const list = await server.call('GET', '/v1/users', { token: otherToken });
      expect(list.body.map((u: { email: string }) => u.email)).not.toContain('ada@acme.example');
      expect(
        (await server.call('DELETE', `/v1/users/${created.body.id}`, { token: otherToken })).status,
      ).toBe(404);
      expect((await server.call('GET', `/v1/users/${created.body.id}`, { token })).status).toBe(200);
    });

    it('keeps health and readiness public', async () => {
      expect((await server.call('GET', '/healthz')).body).toEqual({ status: 'ok' });
      const ready = await server.call('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.checks.database).toBe('ok');
    });
  });
});
