import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { doc, operationAt, responseProblems } from './helpers/spec-validator.js';
import { unlimitedServerForSuite } from './helpers/unlimited-server.js';

/*
 * The limits the spec sets (spec/spectral/platform.yaml asks for them on every string, integer and array)
 * are enforced by the server at the boundary: the largest value passes, one more is 400 with the spec's
 * error body. Every limit is read from the bundle, never restated here. And the RateLimit-* headers the
 * spec documents on every response are sent, with the window's real state.
 */

const schemas = doc.components.schemas;
const parameters = doc.components.parameters;

describe('limits from the spec, at the boundary (sqlite)', () => {
  let server: TestServer;
  let token: string;
  unlimitedServerForSuite('sqlite', (suite) => {
    ({ server, token } = suite);
  });

  /** The response conforms to the operation's documented response for its status. */
  function expectConforms(
    method: string,
    path: string,
    res: { status: number; headers: Headers; text: string },
  ) {
    expect(responseProblems(operationAt(method, path), res.status, res.headers, res.text)).toEqual([]);
  }

  it('a user name of maxLength characters is stored; one more is 400 ApiError naming the field', async () => {
    const max: number = schemas.UserCreate.properties.name.maxLength;
    expect(max).toBeGreaterThan(0);
    const ok = await server.call('POST', '/v1/users', {
      token,
      json: { name: 'n'.repeat(max), email: 'boundary@example.com', role: 'Admin' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.name).toHaveLength(max);
    expectConforms('POST', '/v1/users', ok);

    const over = await server.call('POST', '/v1/users', {
      token,
      json: { name: 'n'.repeat(max + 1), email: 'boundary2@example.com', role: 'Admin' },
    });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ status: 400, statusReason: 'Bad Request' });
    expect(over.body.details).toContainEqual({
      field: 'body.name',
      message: `must NOT have more than ${max} characters`,
    });
    expectConforms('POST', '/v1/users', over);
  });

  it('a page limit of the maximum is served; one more is 400', async () => {
    const max: number = parameters.ListLimit.schema.maximum;
    const ok = await server.call('GET', `/v1/users?limit=${max}`, { token });
    expect(ok.status).toBe(200);
    const over = await server.call('GET', `/v1/users?limit=${max + 1}`, { token });
    expect(over.status).toBe(400);
    expect(over.body.details[0].field).toBe('query.limit');
    expectConforms('GET', '/v1/users', over);
  });

  it('a user id up to the maximum is looked up (404); above it, and below the minimum, is 400', async () => {
    const { minimum, maximum } = parameters.UserId.schema as { minimum: number; maximum: number };
    expect(maximum).toBe(Number.MAX_SAFE_INTEGER);
    expect((await server.call('GET', `/v1/users/${maximum}`, { token })).status).toBe(404);
    const above = await server.call('GET', `/v1/users/${BigInt(maximum) + 1n}`, { token });
    expect(above.status).toBe(400);
    expect(above.body.details[0].field).toBe('path.id');
    expect((await server.call('GET', `/v1/users/${minimum - 1}`, { token })).status).toBe(400);
  });

  it("a dataset's rows up to the maximum is accepted; one more is 400", async () => {
    const max: number = schemas.DatasetCreate.properties.rows.maximum;
    const dataset = (rows: number | bigint) =>
      `{"name":"big","rows":${rows},"schema":{"columns":[{"type":"STRING","name":"a"}]}}`;
    const ok = await server.call('POST', '/v1/datasets', {
      token,
      raw: { body: dataset(max), contentType: 'application/json' },
    });
    expect(ok.status).toBe(201);
    const over = await server.call('POST', '/v1/datasets', {
      token,
      raw: { body: dataset(BigInt(max) + 1n), contentType: 'application/json' },
    });
    expect(over.status).toBe(400);
    expect(over.body.details[0].field).toBe('body.rows');
  });

  it('an integration with maxItems headers is created; one more header, or channelIds over maxItems, is 400', async () => {
    const maxHeaders: number = schemas.IntegrationCreate.properties.headers.maxItems;
    const maxChannels: number = schemas.IntegrationCreate.properties.channelIds.maxItems;
    const headers = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `x-h${i}`, value: 'v' }));
    const ok = await server.call('POST', '/v1/chat/integrations', {
      token,
      json: { name: 'many headers', scope: 'PUBLIC_CHANNELS', headers: headers(maxHeaders) },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.headers).toHaveLength(maxHeaders);
    const tooManyHeaders = await server.call('POST', '/v1/chat/integrations', {
      token,
      json: { name: 'too many headers', scope: 'PUBLIC_CHANNELS', headers: headers(maxHeaders + 1) },
    });
    expect(tooManyHeaders.status).toBe(400);
    expect(tooManyHeaders.body.details).toContainEqual({
      field: 'body.headers',
      message: `must NOT have more than ${maxHeaders} items`,
    });
    const tooManyChannels = await server.call('POST', '/v1/chat/integrations', {
      token,
      json: {
        name: 'too many channels',
        scope: 'CHANNEL_LIST',
        channelIds: Array.from({ length: maxChannels + 1 }, (_, i) => `c${i}`),
      },
    });
    expect(tooManyChannels.status).toBe(400);
    expect(tooManyChannels.body.details).toContainEqual({
      field: 'body.channelIds',
      message: `must NOT have more than ${maxChannels} items`,
    });
    expectConforms('POST', '/v1/chat/integrations', tooManyChannels);
  });

  it('a token request whose scope is over maxLength is 400 invalid_request (OAuthError)', async () => {
    const max: number = schemas.TokenRequest.properties.scope.maxLength;
    const scope = Array.from({ length: Math.ceil(max / 5) + 1 }, () => 'user').join(' ');
    expect(scope.length).toBeGreaterThan(max);
    const res = await server.call('POST', '/oauth/token', {
      basic: { id: server.client.clientId, secret: server.client.clientSecret },
      form: { grant_type: 'client_credentials', scope },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expectConforms('POST', '/oauth/token', res);
  });
});

describe('RateLimit-* headers (sqlite)', () => {
  const windowMs = 60_000;
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer('sqlite', { rateLimit: { max: 4, windowMs } });
  });
  afterAll(async () => limited?.close());

  const state = (res: { headers: Headers }) => ({
    limit: res.headers.get('ratelimit-limit'),
    remaining: res.headers.get('ratelimit-remaining'),
    reset: res.headers.get('ratelimit-reset'),
  });

  it('tell the window of the IP on public operations and unrouted requests, and of the client once authenticated', async () => {
    const health = await limited.call('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(state(health)).toEqual({ limit: '4', remaining: '3', reset: '60' });
    expect(responseProblems(operationAt('GET', '/healthz'), 200, health.headers, health.text)).toEqual([]);

    limited.clock.advance(15_000);
    const unrouted = await limited.call('GET', '/no/such/path');
    expect(unrouted.status).toBe(404);
    expect(state(unrouted)).toEqual({ limit: '4', remaining: '2', reset: '45' });

    // The token request counts against the IP (third request); the bearer calls against the client, in
    // the client's own window, which starts with its first request.
    const token = await limited.token(['user']);
    const seen: Array<ReturnType<typeof state>> = [];
    for (let i = 0; i < 4; i++) seen.push(state(await limited.call('GET', '/v1/users', { token })));
    const refused = await limited.call('GET', '/v1/users', { token });
    seen.push(state(refused));
    expect(seen.map((s) => s.remaining)).toEqual(['3', '2', '1', '0', '0']);
    expect(seen.every((s) => s.limit === '4' && s.reset === '60')).toBe(true);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(responseProblems(operationAt('GET', '/v1/users'), 429, refused.headers, refused.text)).toEqual([]);

    // A new window: the count starts again.
    limited.clock.advance(windowMs);
    const fresh = await limited.call('GET', '/v1/users', { token });
    expect(fresh.status).toBe(200);
    expect(state(fresh)).toEqual({ limit: '4', remaining: '3', reset: '60' });
  });

  it('are not sent when the limiter is off: there is no limit to tell', async () => {
    const off = await startTestServer('sqlite', { rateLimit: { max: 0, windowMs } });
    try {
      const res = await off.call('GET', '/healthz');
      expect(res.status).toBe(200);
      expect(state(res)).toEqual({ limit: null, remaining: null, reset: null });
    } finally {
      await off.close();
    }
  });
});
