import { Buffer } from 'node:buffer';
import { freePort } from '@platform-api/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPlatformClient, PlatformAuthError, PlatformConnectionError } from '../src/index.js';
import { createInternalPlatformClient } from '../src/internal.js';
import { deferred, fakePlatform, json } from './support/fake-fetch.js';

const baseUrl = 'https://api.test';
const credentials = { baseUrl, clientId: 'client-7', clientSecret: 's3cret:with:colons' };

afterEach(() => {
  vi.useRealTimers();
});

describe('token request', () => {
  it('POSTs a client_credentials form to /oauth/token with HTTP Basic client authentication', async () => {
    const platform = fakePlatform();
    const client = createPlatformClient({ ...credentials, scopes: ['user'], fetch: platform.fetch });

    await client.GET('/v1/users');

    expect(platform.tokenRequests).toHaveLength(1);
    const [tokenRequest] = platform.tokenRequests;
    expect(tokenRequest?.method).toBe('POST');
    expect(tokenRequest?.url.href).toBe('https://api.test/oauth/token');
    expect(tokenRequest?.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('client-7:s3cret:with:colons').toString('base64')}`,
    );
    expect(tokenRequest?.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(tokenRequest?.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'user',
    });
  });

  it('encodes non-ASCII credentials as UTF-8 before Base64', async () => {
    const platform = fakePlatform();
    const client = createPlatformClient({
      baseUrl,
      clientId: 'zoë',
      clientSecret: 'pässwört',
      fetch: platform.fetch,
    });

    await client.GET('/v1/users');

    expect(platform.tokenRequests[0]?.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('zoë:pässwört', 'utf8').toString('base64')}`,
    );
  });

  it('joins the scopes with spaces, and sends no scope when none is configured', async () => {
    const scoped = fakePlatform();
    await createPlatformClient({ ...credentials, scopes: ['user', 'data', 'chat'], fetch: scoped.fetch }).GET(
      '/v1/users',
    );
    expect(new URLSearchParams(scoped.tokenRequests[0]?.body).get('scope')).toBe('user data chat');
    expect(scoped.tokenRequests[0]?.body).toBe('grant_type=client_credentials&scope=user+data+chat');

    const unscoped = fakePlatform();
    await createPlatformClient({ ...credentials, fetch: unscoped.fetch }).GET('/v1/users');
    expect(new URLSearchParams(unscoped.tokenRequests[0]?.body).has('scope')).toBe(false);
  });

  it('resolves the token URL against a base URL with a trailing slash', async () => {
    const platform = fakePlatform();
    await createPlatformClient({ ...credentials, baseUrl: 'https://api.test/', fetch: platform.fetch }).GET(
      '/v1/users',
    );
    expect(platform.tokenRequests[0]?.url.href).toBe('https://api.test/oauth/token');
    expect(platform.apiRequests[0]?.url.href).toBe('https://api.test/v1/users');
  });
});

describe('token cache', () => {
  it('fetches the token once and sends it as a bearer token with every call', async () => {
    const platform = fakePlatform();
    const client = createPlatformClient({ ...credentials, scopes: ['user'], fetch: platform.fetch });

    await client.GET('/v1/users');
    await client.GET('/v1/users/{id}', { params: { path: { id: 42 } } });
    await client.DELETE('/v1/users/{id}', { params: { path: { id: 42 } } });

    expect(platform.tokenRequests).toHaveLength(1);
    expect(platform.apiRequests.map((r) => r.headers.get('authorization'))).toEqual([
      'Bearer token-1',
      'Bearer token-1',
      'Bearer token-1',
    ]);
  });

  it('refreshes the token 60 s before it expires (by default), counting from the time of the request', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const platform = fakePlatform({ expiresIn: 3600 });
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    await client.GET('/v1/users');
    vi.setSystemTime(new Date('2026-01-01T00:58:59Z')); // 61 s before expiry: still good
    await client.GET('/v1/users');
    expect(platform.tokenRequests).toHaveLength(1);

    vi.setSystemTime(new Date('2026-01-01T00:59:00Z')); // 60 s before expiry: refresh
    await client.GET('/v1/users');
    expect(platform.tokenRequests).toHaveLength(2);
    expect(platform.apiRequests.at(-1)?.headers.get('authorization')).toBe('Bearer token-2');

    vi.setSystemTime(new Date('2026-01-01T01:30:00Z')); // the second token is still good
    await client.GET('/v1/users');
    expect(platform.tokenRequests).toHaveLength(2);
  });

  it('honours tokenRefreshMarginSeconds, capped at half a short lifetime', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = new Date('2026-01-01T00:00:00Z').getTime();
    vi.setSystemTime(start);
    const platform = fakePlatform({ expiresIn: 600 });
    const client = createPlatformClient({
      ...credentials,
      fetch: platform.fetch,
      tokenRefreshMarginSeconds: 500,
    });

    await client.GET('/v1/users');
    vi.setSystemTime(start + 299_000); // margin is capped at 300 s (half of 600)
    await client.GET('/v1/users');
    expect(platform.tokenRequests).toHaveLength(1);
    vi.setSystemTime(start + 300_000);
    await client.GET('/v1/users');
    expect(platform.tokenRequests).toHaveLength(2);
  });

  it('shares one token request among ten concurrent calls', async () => {
    const tokenHeld = deferred();
    const platform = fakePlatform({
      token: async () => {
        await tokenHeld.promise;
        return platform.issueToken({} as never);
      },
    });
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    const calls = Array.from({ length: 10 }, (_, i) =>
      client.GET('/v1/users/{id}', { params: { path: { id: i } } }),
    );
    await vi.waitFor(() => expect(platform.tokenRequests).toHaveLength(1));
    tokenHeld.resolve();
    await Promise.all(calls);

    expect(platform.tokenRequests).toHaveLength(1);
    expect(platform.apiRequests).toHaveLength(10);
    expect(new Set(platform.apiRequests.map((r) => r.headers.get('authorization')))).toEqual(
      new Set(['Bearer token-1']),
    );
  });
});

describe('401 invalid_token', () => {
  const rejectFirstToken = (request: { headers: Headers; body: string }) =>
    request.headers.get('authorization') === 'Bearer token-1'
      ? json({ error: 'invalid_token', error_description: 'Cannot convert access token to JSON' }, 401, {
          'WWW-Authenticate': 'Bearer error="invalid_token"',
        })
      : json({ id: 5, name: 'Ada', email: 'ada@example.com', role: 'Admin' }, 201, {
          Location: '/v1/users/5',
        });

  it('drops the cached token and retries the call once with a fresh one, body included', async () => {
    const platform = fakePlatform({ api: rejectFirstToken });
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    const { data, response } = await client.POST('/v1/users', {
      body: { name: 'Ada', email: 'ada@example.com', role: 'Admin' },
    });

    expect(response.status).toBe(201);
    expect(data?.id).toBe(5);
    expect(platform.tokenRequests).toHaveLength(2);
    expect(platform.apiRequests.map((r) => r.headers.get('authorization'))).toEqual([
      'Bearer token-1',
      'Bearer token-2',
    ]);
    expect(JSON.parse(platform.apiRequests[1]?.body ?? '')).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
      role: 'Admin',
    });

    // The fresh token is cached for later calls.
    await client.GET('/v1/users');
    expect(platform.tokenRequests).toHaveLength(2);
    expect(platform.apiRequests.at(-1)?.headers.get('authorization')).toBe('Bearer token-2');
  });

  it('recognises invalid_token from the body alone (no WWW-Authenticate)', async () => {
    const platform = fakePlatform({
      api: (request) =>
        request.headers.get('authorization') === 'Bearer token-1'
          ? json({ error: 'invalid_token' }, 401)
          : json([]),
    });
    const { response } = await createPlatformClient({ ...credentials, fetch: platform.fetch }).GET(
      '/v1/users',
    );
    expect(response.status).toBe(200);
    expect(platform.apiRequests.map((r) => r.headers.get('authorization'))).toEqual([
      'Bearer token-1',
      'Bearer token-2',
    ]);
  });

  it('retries only once: a second 401 is returned to the caller', async () => {
    const platform = fakePlatform({ api: () => json({ error: 'invalid_token' }, 401) });
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    const { error, response } = await client.GET('/v1/users');

    expect(response.status).toBe(401);
    expect(error).toEqual({ error: 'invalid_token' });
    expect(platform.apiRequests).toHaveLength(2);
    expect(platform.tokenRequests).toHaveLength(2);
  });

  it('does not retry other 401 answers', async () => {
    const platform = fakePlatform({
      api: () => json({ status: 401, statusReason: 'Unauthorized', toe: '' }, 401),
    });
    const { response } = await createPlatformClient({ ...credentials, fetch: platform.fetch }).GET(
      '/v1/users',
    );
    expect(response.status).toBe(401);
    expect(platform.apiRequests).toHaveLength(1);
    expect(platform.tokenRequests).toHaveLength(1);
  });

  it('shares one refresh among concurrent calls rejected with the same token', async () => {
    const platform = fakePlatform({ api: rejectFirstToken });
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        client.POST('/v1/users', { body: { name: 'Ada', email: 'ada@example.com', role: 'Admin' } }),
      ),
    );

    expect(responses.map((r) => r.response.status)).toEqual([201, 201, 201, 201, 201]);
    expect(platform.tokenRequests).toHaveLength(2);
  });
});

describe('token errors', () => {
  it('rejects the call with a PlatformAuthError carrying the OAuth error body', async () => {
    const platform = fakePlatform({
      token: () => json({ error: 'invalid_client', error_description: 'Bad client credentials' }, 401),
    });
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    const failure = await client.GET('/v1/users').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(PlatformAuthError);
    const authError = failure as PlatformAuthError;
    expect(authError.status).toBe(401);
    expect(authError.error).toBe('invalid_client');
    expect(authError.body).toEqual({ error: 'invalid_client', error_description: 'Bad client credentials' });
    expect(authError.message).toContain('invalid_client: Bad client credentials');
    expect(platform.apiRequests).toHaveLength(0);
  });

  it('does not cache a failure: the next call asks again', async () => {
    let attempts = 0;
    const platform = fakePlatform({
      token: (request) => {
        attempts += 1;
        return attempts === 1 ? json({ error: 'invalid_scope' }, 400) : platform.issueToken(request);
      },
    });
    const client = createPlatformClient({ ...credentials, scopes: ['data'], fetch: platform.fetch });

    await expect(client.GET('/v1/users')).rejects.toMatchObject({ name: 'PlatformAuthError', status: 400 });
    const { response } = await client.GET('/v1/users');
    expect(response.status).toBe(200);
    expect(platform.tokenRequests).toHaveLength(2);
  });

  it('reports an unreachable token endpoint, a non-OAuth error body and a 200 without a token', async () => {
    const unreachable = createPlatformClient({
      ...credentials,
      maxRetries: 0,
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    // No answer is a connection failure, as "Timeouts and retries" says, even on the token request.
    const networkFailure = await unreachable.GET('/v1/users').catch((error: unknown) => error);
    expect(networkFailure).toBeInstanceOf(PlatformConnectionError);
    expect(networkFailure).toMatchObject({ attempts: 1, timedOut: false });
    expect((networkFailure as PlatformConnectionError).message).toContain(`POST ${baseUrl}/oauth/token`);
    expect((networkFailure as PlatformConnectionError).cause).toBeInstanceOf(TypeError);

    const html = fakePlatform({ token: () => new Response('<h1>Bad gateway</h1>', { status: 502 }) });
    const gatewayFailure = await createPlatformClient({ ...credentials, maxRetries: 0, fetch: html.fetch })
      .GET('/v1/users')
      .catch((error: unknown) => error);
    expect(gatewayFailure).toMatchObject({ name: 'PlatformAuthError', status: 502, body: undefined });

    const empty = fakePlatform({ token: () => json({ token_type: 'bearer' }) });
    await expect(
      createPlatformClient({ ...credentials, fetch: empty.fetch }).GET('/v1/users'),
    ).rejects.toThrow(/no access_token/);
  });
});

describe('an unreachable host', () => {
  it('rejects the first call of a fresh client with a PlatformConnectionError (a closed port)', async () => {
    // A port that was free a moment ago: nothing listens there, the connection is refused.
    const port = await freePort();
    const client = createPlatformClient({
      ...credentials,
      baseUrl: `http://127.0.0.1:${port}`,
      maxRetries: 1,
    });
    const failure = await client.GET('/v1/users').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PlatformConnectionError);
    expect(failure).not.toBeInstanceOf(PlatformAuthError);
    expect(failure).toMatchObject({ attempts: 2, timedOut: false });
  });
});

describe('options', () => {
  it('refuses missing credentials and a negative refresh margin', () => {
    expect(() => createPlatformClient({ ...credentials, clientSecret: '' })).toThrow(/clientSecret/);
    expect(() => createPlatformClient({ ...credentials, baseUrl: '' })).toThrow(/baseUrl/);
    expect(() => createPlatformClient({ ...credentials, tokenRefreshMarginSeconds: -1 })).toThrow(
      /tokenRefreshMarginSeconds/,
    );
  });
});

describe('operations without a bearer token', () => {
  it('requests no token for public operations, the token endpoint or the callback post-back', async () => {
    const platform = fakePlatform({ api: () => json({ status: 'ok' }) });
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    await client.GET('/.well-known/jwks.json');
    await client.POST('/v1/chat/bots/message/{channelId}', {
      params: { path: { channelId: 'c1' } },
      headers: { 'x-chat-bot-token': 'f'.repeat(64) },
      body: { content: { text: 'Deployed.' } },
    });

    expect(platform.tokenRequests).toHaveLength(0);
    expect(platform.apiRequests.map((r) => r.headers.get('authorization'))).toEqual([null, null]);
    expect(platform.apiRequests[1]?.headers.get('x-chat-bot-token')).toBe('f'.repeat(64));
  });

  it('sends a call to /oauth/token as the caller wrote it, without fetching a token first', async () => {
    const platform = fakePlatform();
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    const { data } = await client.GET('/oauth/token', {
      params: { query: { grant_type: 'client_credentials', scope: 'user' } },
      headers: { Authorization: 'Basic b3RoZXI6Y2xpZW50' },
    });

    expect(data?.access_token).toBe('token-1');
    expect(platform.tokenRequests).toHaveLength(1);
    expect(platform.tokenRequests[0]?.method).toBe('GET');
    expect(platform.tokenRequests[0]?.headers.get('authorization')).toBe('Basic b3RoZXI6Y2xpZW50');
  });
});

describe('the internal client (this repository only)', () => {
  it('knows the x-internal operations, and their security: a token for the chat API, none for /healthz', async () => {
    const platform = fakePlatform({ api: () => json({ status: 'ok' }) });
    const client = createInternalPlatformClient({ ...credentials, fetch: platform.fetch });

    await client.GET('/healthz');
    await client.GET('/v1/chat/channels', { params: { query: { limit: 10 } } });

    expect(platform.apiRequests.map((r) => r.headers.get('authorization'))).toEqual([null, 'Bearer token-1']);
  });
});
