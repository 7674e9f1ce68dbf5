// The launcher: Prism comes up on the bundled spec behind the front, answers from its examples, rejects
// invalid requests with 4xx, and stops cleanly (the port is free again); the front answers 401s for the
// request that was made. The full contract suite against the mocks lives in @platform-api/contract-tests.
import { freePort, portIsFree } from '@platform-api/test-support';
import { loadBundle, SpecValidator } from '@platform-api/validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockServer, startMock } from '../src/index.js';

describe.each(['platform', 'site'] as const)('%s mock', (api) => {
  it('starts, serves the spec and stops', async () => {
    const port = await freePort();
    const mock = await startMock(api, { port });
    try {
      expect(mock.url).toBe(`http://127.0.0.1:${port}`);
      const path = api === 'platform' ? '/v1/users?limit=2' : '/wp/v2/posts';
      const headers: Record<string, string> = api === 'platform' ? { authorization: 'Bearer any' } : {};
      const ok = await fetch(`${mock.url}${path}`, { headers });
      expect(ok.status).toBe(200);
      expect(Array.isArray(await ok.json())).toBe(true);
      const invalid = await fetch(
        `${mock.url}${api === 'platform' ? '/v1/users?limit=9999' : '/wp/v2/posts?per_page=101'}`,
        { headers },
      );
      expect(invalid.status).toBeGreaterThanOrEqual(400);
      expect(invalid.status).toBeLessThan(500);
    } finally {
      await mock.close();
    }
    expect(await portIsFree(port)).toBe(true);
  });
});

describe('the front before Prism', () => {
  const platform = new SpecValidator(loadBundle('platform'));
  const site = new SpecValidator(loadBundle('site'));
  let mocks: Record<'platform' | 'site', MockServer>;

  beforeAll(async () => {
    const [platformMock, siteMock] = await Promise.all([
      startMock('platform', { port: 0 }),
      startMock('site', { port: 0 }),
    ]);
    mocks = { platform: platformMock, site: siteMock };
  });
  afterAll(async () => {
    await Promise.all(Object.values(mocks ?? {}).map((mock) => mock.close()));
  });

  async function exchange(
    api: 'platform' | 'site',
    method: string,
    path: string,
    headers: Record<string, string> = {},
  ) {
    const response = await fetch(`${mocks[api].url}${path}`, { method, headers });
    const answer = { status: response.status, headers: response.headers, body: await response.text() };
    const validator = api === 'platform' ? platform : site;
    const operation = validator.findOperation(method, path);
    if (!operation) throw new Error(`no operation for ${method} ${path}`);
    expect(validator.validateResponse(operation, answer)).toEqual([]);
    return { ...answer, json: JSON.parse(answer.body) as Record<string, unknown> };
  }

  it('answers / on the platform mock with the links to the docs and the health check', async () => {
    const index = await exchange('platform', 'GET', '/');
    expect(index.status).toBe(200);
    const links = index.json.links as Record<string, string>;
    expect(links.docs).toMatch(/^https?:\/\//);
    expect((await exchange('platform', 'GET', links.health ?? '')).status).toBe(200);
  });

  it('answers / on the site mock with the site index', async () => {
    const index = await exchange('site', 'GET', '/');
    expect(index.status).toBe(200);
    expect(index.json.routes).toBeTypeOf('object');
  });

  it('answers a request without credentials with a 401 naming its path and claiming no expired token', async () => {
    const path = '/v1/chat/channels/ch_4f2a9d71c3/messages?limit=5';
    const denied = await exchange('platform', 'GET', path);
    expect(denied.status).toBe(401);
    expect(denied.json.path).toBe('/v1/chat/channels/ch_4f2a9d71c3/messages');
    const challenge = denied.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer realm="[^"]+"$/);
    // A Basic header is no bearer token either (RFC 6750 §3.1: no error code then).
    const basic = await exchange('platform', 'GET', '/v1/users/964382593', { authorization: 'Basic eDp5' });
    expect(basic.status).toBe(401);
    expect(basic.json.path).toBe('/v1/users/964382593');
    expect(basic.headers.get('www-authenticate')).toBe(challenge);
  });

  it('challenges a callback post without its token with the callback scheme, not Bearer', async () => {
    const response = await fetch(`${mocks.platform.url}/v1/chat/bots/message/ch_4f2a9d71c3`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: { text: 'hi' } }),
    });
    const answer = { status: response.status, headers: response.headers, body: await response.text() };
    expect(platform.validateResponse(platform.operation('postCallbackMessage'), answer)).toEqual([]);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^ChatBotToken realm="[^"]+"$/);
    expect(JSON.parse(answer.body).path).toBe('/v1/chat/bots/message/ch_4f2a9d71c3');
  });

  it('keeps the challenge of a 401 asked for with a bearer token (Prefer: code=401)', async () => {
    const denied = await exchange('platform', 'GET', '/v1/users/964382593', {
      authorization: 'Bearer any',
      prefer: 'code=401',
    });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('answers a token request with grant_type in neither the query nor the form with the documented 400', async () => {
    const token = platform.operation('createAccessToken');
    const basic = `Basic ${Buffer.from('client:secret').toString('base64')}`;
    const form = (body: string) =>
      fetch(`${mocks.platform.url}/oauth/token`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    const missing = await form('scope=user');
    const answer = { status: missing.status, headers: missing.headers, body: await missing.text() };
    expect(platform.validateResponse(token, answer)).toEqual([]);
    expect(answer.status).toBe(400);
    expect((await form('grant_type=client_credentials')).status).toBe(200);
    const inQuery = await fetch(`${mocks.platform.url}/oauth/token?grant_type=client_credentials`, {
      method: 'POST',
      headers: { authorization: basic },
    });
    expect(inQuery.status).toBe(200);
  });

  it('survives a refused JSON body whose property name holds U+007F (Prism would put it in a header)', async () => {
    const createDataset = platform.operation('createDataset');
    const post = async (body: unknown) => {
      const response = await fetch(`${mocks.platform.url}/v1/datasets`, {
        method: 'POST',
        headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, headers: response.headers, body: await response.text() };
    };
    // In the dataset's schema, a closed object: Prism refuses the name and reports it.
    const columns = [{ type: 'STRING', name: 'c' }];
    for (const name of ['x\u007f', 'x\u0100', 'x\u{1f600}']) {
      const refused = await post({ name: 'd', schema: { columns, [name]: 1 } });
      expect(refused.status).toBe(400);
      expect(platform.validateResponse(createDataset, refused)).toEqual([]);
    }
    expect((await post({ name: 'd', schema: { columns } })).status).toBe(201);
  });

  it('serves the site under /wp-json too, where real sites serve it', async () => {
    const posts = await fetch(`${mocks.site.url}/wp-json/wp/v2/posts?per_page=2`);
    expect(posts.status).toBe(200);
    expect(Array.isArray(await posts.json())).toBe(true);
    const index = await fetch(`${mocks.site.url}/wp-json/`);
    expect(index.status).toBe(200);
    expect(((await index.json()) as { namespaces: string[] }).namespaces).toEqual(
      expect.arrayContaining(['wp/v2']),
    );
  });
});
