// Timeouts and retries against a real local server that fails on purpose (test/support/flaky-server.ts),
// reached over TCP with the real fetch.
import { afterEach, describe, expect, it } from 'vitest';
import {
  createPlatformClient,
  createSiteClient,
  PlatformApiError,
  PlatformAuthError,
  type PlatformClientOptions,
  PlatformConnectionError,
} from '../src/index.js';
import { retryDelayMs } from '../src/retry.js';
import { type Behaviour, type FlakyServer, startFlakyServer, token } from './support/flaky-server.js';

const apiError = (status: number, toe = 'T0E-1') => ({ status, statusReason: 'Failure', toe });
const user = { id: 1, name: 'Ada', email: 'ada@example.com', role: 'Admin' };
const ok: Behaviour = { status: 200, json: [user] };
/** Retry at once: keeps the tests fast without changing what is retried. */
const now = { 'Retry-After': '0' };

let server: FlakyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server whose token endpoint works and whose other paths follow `script`. */
async function platformServer(script: (previous: number, method: string) => Behaviour) {
  server = await startFlakyServer((request, previous) =>
    request.path === '/oauth/token' ? token() : script(previous, request.method),
  );
  return server;
}

const clientOf = (flaky: FlakyServer, options: Partial<PlatformClientOptions> = {}) =>
  createPlatformClient({ baseUrl: flaky.url, clientId: 'c', clientSecret: 's', ...options });

describe('with the defaults (maxRetries 2)', () => {
  it('a call against a server that answers 503 twice and then 200 succeeds', async () => {
    const flaky = await platformServer((previous) =>
      previous < 2 ? { status: 503, json: apiError(503) } : ok,
    );
    const started = Date.now();

    const { data, response } = await clientOf(flaky).GET('/v1/users');

    expect(response.status).toBe(200);
    expect(data).toEqual([user]);
    expect(flaky.requestsTo('/v1/users')).toHaveLength(3);
    // No Retry-After: backoff of about 0.5 s, then 1 s (each less up to 25 % jitter).
    expect(Date.now() - started).toBeGreaterThanOrEqual(0.75 * 1500);
    // Every attempt carries the token; one token request served them all.
    expect(flaky.requestsTo('/v1/users').map((r) => r.headers.authorization)).toEqual(
      Array(3).fill('Bearer token-1'),
    );
    expect(flaky.requestsTo('/oauth/token')).toHaveLength(1);
  });

  it('gives up after two retries and returns the last answer, whose error carries status, body and toe', async () => {
    const flaky = await platformServer(() => ({ status: 503, headers: now, json: apiError(503, 'ABC-123') }));

    const result = await clientOf(flaky).GET('/v1/users');

    expect(result.response.status).toBe(503);
    expect(flaky.requestsTo('/v1/users')).toHaveLength(3);
    const error = PlatformApiError.from(result);
    expect(error).toMatchObject({ status: 503, body: apiError(503, 'ABC-123'), toe: 'ABC-123' });
    expect(error.message).toBe('/v1/users answered 503 Failure (toe ABC-123)');
  });

  it('retries 408, 409, 429 and every 5xx, and no other status', async () => {
    for (const status of [408, 409, 429, 500, 502, 504]) {
      const flaky = await platformServer((previous) =>
        previous === 0 ? { status, headers: now, json: apiError(status) } : ok,
      );
      expect((await clientOf(flaky).GET('/v1/users')).response.status, `after ${status}`).toBe(200);
      expect(flaky.requestsTo('/v1/users'), `after ${status}`).toHaveLength(2);
      await flaky.close();
    }
    for (const status of [400, 403, 404, 422]) {
      const flaky = await platformServer(() => ({ status, headers: now, json: apiError(status) }));
      expect((await clientOf(flaky).GET('/v1/users')).response.status).toBe(status);
      expect(flaky.requestsTo('/v1/users'), `after ${status}`).toHaveLength(1);
      await flaky.close();
    }
  });

  it('retries a reset connection, and reports one that keeps failing as a PlatformConnectionError', async () => {
    const flaky = await platformServer((previous) => (previous === 0 ? 'reset' : ok));
    expect((await clientOf(flaky).GET('/v1/users')).response.status).toBe(200);
    expect(flaky.requestsTo('/v1/users')).toHaveLength(2);
    await flaky.close();

    const dead = await platformServer(() => 'reset');
    const failure = await clientOf(dead)
      .GET('/v1/users')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PlatformConnectionError);
    expect(failure).toMatchObject({ timedOut: false, attempts: 3 });
    expect((failure as Error).cause).toBeInstanceOf(TypeError); // fetch's "fetch failed"
    expect(dead.requestsTo('/v1/users')).toHaveLength(3);
  });

  it('does not retry POST or PATCH unless asked to; PUT and DELETE are retried', async () => {
    // The first request of each method fails with 503, the next ones succeed.
    const flaky = await platformServer((_, method) =>
      flaky.requests.filter((r) => r.method === method && r.path !== '/oauth/token').length === 1
        ? { status: 503, headers: now, json: apiError(503) }
        : { status: 201, json: user },
    );
    const client = clientOf(flaky);
    const body = { name: 'Ada', email: 'ada@example.com', role: 'Admin' } as const;

    expect((await client.POST('/v1/users', { body })).response.status).toBe(503);
    expect(flaky.requestsTo('/v1/users')).toHaveLength(1);

    // Opting in for one call: the body is sent again with the retry.
    const retried = await client.withOptions({ retryNonIdempotent: true }).POST('/v1/users', { body });
    expect(retried.response.status).toBe(201);
    expect(flaky.requestsTo('/v1/users').map((r) => JSON.parse(r.body).name)).toEqual(['Ada', 'Ada']);

    const path = { id: 1 };
    expect((await client.PUT('/v1/users/{id}', { params: { path }, body })).response.status).toBe(201);
    expect((await client.DELETE('/v1/users/{id}', { params: { path } })).response.status).toBe(201);
    expect(flaky.requestsTo('/v1/users/1').map((r) => r.method)).toEqual(['PUT', 'PUT', 'DELETE', 'DELETE']);
  });
});

describe('Retry-After', () => {
  it('waits as long as the server asks: seconds, retry-after-ms, or an HTTP date', async () => {
    const flaky = await platformServer((previous) =>
      previous === 0 ? { status: 429, headers: { 'Retry-After': '1' }, json: apiError(429) } : ok,
    );
    const started = Date.now();
    expect((await clientOf(flaky).GET('/v1/users')).response.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);

    expect(retryDelayMs(0, new Headers({ 'retry-after-ms': '1500' }))).toBe(1500);
    expect(retryDelayMs(0, new Headers({ 'Retry-After': '2.5' }))).toBe(2500);
    const at = Date.parse('2030-01-01T00:00:10Z');
    expect(retryDelayMs(0, new Headers({ 'Retry-After': 'Tue, 01 Jan 2030 00:00:13 GMT' }), at)).toBe(3000);
  });

  it('backs off 0.5 s × 2ⁿ with up to 25 % jitter, capped at 8 s, when the server gives no usable delay', () => {
    for (const [retry, full] of [
      [0, 500],
      [1, 1000],
      [2, 2000],
      [3, 4000],
      [4, 8000],
      [9, 8000],
    ] as const) {
      const delays = Array.from({ length: 50 }, () => retryDelayMs(retry, new Headers()));
      for (const delay of delays) {
        expect(delay).toBeGreaterThan(0.75 * full - 1e-9);
        expect(delay).toBeLessThanOrEqual(full);
      }
    }
    // Nonsense and delays beyond a minute fall back to the backoff.
    for (const value of ['soon', '-5', '3600']) {
      expect(retryDelayMs(0, new Headers({ 'Retry-After': value }))).toBeLessThanOrEqual(500);
    }
  });
});

describe('timeout', () => {
  it('bounds each attempt, retries a timed-out one, and reports the last as timedOut', async () => {
    const flaky = await platformServer((previous) => (previous === 0 ? 'hang' : ok));
    expect((await clientOf(flaky, { timeout: 300 }).GET('/v1/users')).response.status).toBe(200);
    expect(flaky.requestsTo('/v1/users')).toHaveLength(2);
    await flaky.close();

    const silent = await platformServer(() => 'hang');
    const failure = await clientOf(silent, { timeout: 200, maxRetries: 1 })
      .GET('/v1/users')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PlatformConnectionError);
    expect(failure).toMatchObject({ timedOut: true, attempts: 2 });
    expect((failure as Error).message).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/users timed out after 200 ms \(2 attempts\)$/,
    );
    expect(silent.requestsTo('/v1/users')).toHaveLength(2);
  });

  it("never retries the caller's own abort, during an attempt or while waiting to retry", async () => {
    const silent = await platformServer(() => 'hang');
    const aborted = await clientOf(silent)
      .GET('/v1/users', { signal: AbortSignal.timeout(200) })
      .catch((error: unknown) => error);
    expect((aborted as Error).name).toBe('TimeoutError');
    expect(silent.requestsTo('/v1/users')).toHaveLength(1);
    await silent.close();

    const busy = await platformServer(() => ({
      status: 503,
      headers: { 'Retry-After': '30' },
      json: apiError(503),
    }));
    const controller = new AbortController();
    const waiting = clientOf(busy).GET('/v1/users', { signal: controller.signal });
    await expect.poll(() => busy.requestsTo('/v1/users').length).toBe(1);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(busy.requestsTo('/v1/users')).toHaveLength(1);
  });
});

describe('per-call overrides (withOptions)', () => {
  it('changes maxRetries and timeout for the calls made through it, sharing the token', async () => {
    const flaky = await platformServer(() => ({ status: 503, headers: now, json: apiError(503) }));
    const client = clientOf(flaky);

    expect((await client.withOptions({ maxRetries: 0 }).GET('/v1/users')).response.status).toBe(503);
    expect(flaky.requestsTo('/v1/users')).toHaveLength(1);
    expect((await client.withOptions({ maxRetries: 4 }).GET('/v1/users')).response.status).toBe(503);
    expect(flaky.requestsTo('/v1/users')).toHaveLength(6);
    // The original keeps its own settings.
    await client.GET('/v1/users');
    expect(flaky.requestsTo('/v1/users')).toHaveLength(9);
    expect(flaky.requestsTo('/oauth/token')).toHaveLength(1);

    expect(() => client.withOptions({ timeout: 0 })).toThrow(/timeout/);
    expect(() => clientOf(flaky, { maxRetries: -1 })).toThrow(/maxRetries/);
  });
});

describe('the token request', () => {
  it('is retried like any call, and a connection failure stays a PlatformConnectionError once the retries are spent', async () => {
    server = await startFlakyServer((request, previous) =>
      request.path === '/oauth/token' ? (previous < 2 ? { status: 503, headers: now } : token()) : ok,
    );
    expect((await clientOf(server).GET('/v1/users')).response.status).toBe(200);
    expect(server.requestsTo('/oauth/token')).toHaveLength(3);
    await server.close();

    server = await startFlakyServer((request) => (request.path === '/oauth/token' ? 'reset' : ok));
    const failure = await clientOf(server, { maxRetries: 1 })
      .GET('/v1/users')
      .catch((error: unknown) => error);
    // The README's "Timeouts and retries": an unreachable token endpoint is a connection error, not an
    // authentication one.
    expect(failure).toBeInstanceOf(PlatformConnectionError);
    expect(failure).not.toBeInstanceOf(PlatformAuthError);
    expect(server.requestsTo('/oauth/token')).toHaveLength(2);
    expect(server.requestsTo('/v1/users')).toHaveLength(0);
  });
});

describe('the site client', () => {
  it('retries the same way, with the same options', async () => {
    server = await startFlakyServer((_, previous) =>
      previous % 3 < 2 ? { status: 502, headers: now } : { status: 200, json: [] },
    );
    const site = createSiteClient({
      baseUrl: `${server.url}/wp-json`,
      username: 'editor',
      applicationPassword: 'x',
    });
    expect((await site.GET('/wp/v2/posts')).response.status).toBe(200);
    expect(server.requestsTo('/wp-json/wp/v2/posts')).toHaveLength(3);
    expect(server.requests[2]?.headers.authorization).toMatch(/^Basic /);

    expect((await site.withOptions({ maxRetries: 0 }).GET('/wp/v2/posts')).response.status).toBe(502);
    expect(server.requestsTo('/wp-json/wp/v2/posts')).toHaveLength(4);
  });
});
