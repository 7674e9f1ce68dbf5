// The launcher: Prism comes up on the bundled spec behind the front, answers from its examples (without
// memory) or from the mock's state, rejects invalid requests with 4xx, and stops cleanly (the port is free
// again); the front answers 401s for the request that was made. The mock's memory is state.test.ts; the
// full contract suite against the mocks lives in @platform-api/contract-tests.
import { freePort, portIsFree } from '@platform-api/test-support';
import { loadBundle, SpecValidator } from '@platform-api/validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockServer, startMock } from '../src/index.js';
import { bearer } from './support/exchange.js';

describe.each(['platform', 'site'] as const)('%s mock', (api) => {
  it.each([false, true])('starts, serves the spec and stops (stateless: %s)', async (stateless) => {
    const port = await freePort();
    const mock = await startMock(api, { port, stateless });
    try {
      expect(mock.url).toBe(`http://127.0.0.1:${port}`);
      const path = api === 'platform' ? '/v1/users?limit=2' : '/wp/v2/posts';
      const headers: Record<string, string> =
        api === 'platform'
          ? stateless
            ? { authorization: 'Bearer any' }
            : await bearer(mock.url, 'launcher')
          : {};
      const ok = await fetch(`${mock.url}${path}`, { headers });
      expect(ok.status).toBe(200);
      expect(Array.isArray(await ok.json())).toBe(true);
      const invalid = await fetch(
        `${mock.url}${api === 'platform' ? '/v1/users?limit=9999' : '/wp/v2/posts?per_page=101'}`,
        { headers },
      );
      expect(invalid.status).toBeGreaterThanOrEqual(400);
      expect(invalid.status).toBeLessThan(500);
      expect(ok.headers.get('server')).toBe(`platform-api-mock (${stateless ? 'stateless' : 'memory'})`);
      // Answered by Prism or by the state, a browser on another origin may read it (the docs' console).
      expect(ok.headers.get('access-control-allow-origin')).toBe('*');
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
  /** A bearer token the platform mock issued. */
  let token: { authorization: string };

  beforeAll(async () => {
    const [platformMock, siteMock] = await Promise.all([
      startMock('platform', { port: 0 }),
      startMock('site', { port: 0 }),
    ]);
    mocks = { platform: platformMock, site: siteMock };
    token = (await bearer(platformMock.url, 'front-tests')) as { authorization: string };
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
    const denied = await exchange('platform', 'GET', '/v1/users/964382593', { ...token, prefer: 'code=401' });
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
        headers: { ...token, 'content-type': 'application/json' },
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

  it('answers a malformed JSON body with the API error body: an ApiError (platform), rest_invalid_json (site)', async () => {
    for (const [api, path] of [
      ['platform', '/v1/users'],
      ['site', '/wp/v2/posts'],
    ] as const) {
      const response = await fetch(`${mocks[api].url}${path}`, {
        method: 'POST',
        headers: {
          authorization: api === 'platform' ? token.authorization : 'Basic eDp5',
          'content-type': 'application/json',
        },
        body: '{"name": ',
      });
      const answer = { status: response.status, headers: response.headers, body: await response.text() };
      const validator = api === 'platform' ? platform : site;
      const operation = validator.findOperation('POST', path);
      if (!operation) throw new Error(`no operation for POST ${path}`);
      expect(answer.status).toBe(400);
      expect(validator.validateResponse(operation, answer)).toEqual([]);
      expect(JSON.parse(answer.body)).toMatchObject(
        api === 'platform' ? { status: 400, path } : { code: 'rest_invalid_json', data: { status: 400 } },
      );
    }
  });

  it('refuses a JSON null body where the schema asks for an object, as the reference server does', async () => {
    const response = await fetch(`${mocks.platform.url}/v1/groups/876655018/users/964382593`, {
      method: 'PUT',
      headers: { ...token, 'content-type': 'application/json' },
      body: 'null',
    });
    const answer = { status: response.status, headers: response.headers, body: await response.text() };
    expect(answer.status).toBe(400);
    expect(platform.validateResponse(platform.operation('addGroupUser'), answer)).toEqual([]);
    expect(JSON.parse(answer.body).path).toBe('/v1/groups/876655018/users/964382593');
  });

  it('answers a method the path does not offer with 405 and Allow (an ApiError on the platform)', async () => {
    const refused = await fetch(`${mocks.platform.url}/v1/users`, { method: 'DELETE', headers: token });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('GET, HEAD, POST');
    const body = await refused.json();
    expect(platform.validateAt('#/components/schemas/ApiError', body)).toEqual([]);
    expect(body).toMatchObject({ status: 405, path: '/v1/users' });
    const site405 = await fetch(`${mocks.site.url}/wp-json/wp/v2/posts`, { method: 'DELETE' });
    expect(site405.status).toBe(405);
    expect(site405.headers.get('allow')).toBe('GET, HEAD, POST');
    await site405.arrayBuffer();
  });

  it('refuses an empty integer or boolean, or a string off its pattern, with the documented 400, as the servers do', async () => {
    const empty = await exchange('platform', 'GET', '/v1/users?limit=', token);
    expect(empty.status).toBe(400);
    expect(empty.json.path).toBe('/v1/users');
    expect((await exchange('site', 'GET', '/wp/v2/posts?per_page=')).status).toBe(400);
    expect((await exchange('site', 'GET', '/wp/v2/posts?sticky=')).status).toBe(400);
    // and a string its pattern refuses (Prism reads no pattern): WordPress refuses both.
    expect((await exchange('site', 'GET', '/wp/v2/posts?modified_before=')).status).toBe(400);
    expect((await exchange('site', 'GET', '/wp/v2/posts?after=2024-13-01T00:00:00')).status).toBe(400);
    expect((await exchange('site', 'GET', '/wp/v2/posts?after=2024-02-30T00:00:00')).status).toBe(200);
  });

  it('answers HEAD on every GET route as GET without the body (WordPress and the reference server do)', async () => {
    for (const [api, path, headers] of [
      ['platform', '/v1/users', token],
      ['site', '/', {}],
      ['site', '/wp-json/wp/v2/posts', {}],
    ] as const) {
      const response = await fetch(`${mocks[api].url}${path}`, { method: 'HEAD', headers });
      expect(response.status, `HEAD ${api} ${path}`).toBe(200);
      expect(await response.text()).toBe('');
    }
  });

  it('links the site root to the API root, as WordPress does on every answer (discovery)', async () => {
    const url = mocks.site.url;
    for (const path of ['/', '/wp-json/', '/wp-json/wp/v2/posts/1']) {
      const response = await fetch(`${url}${path}`, { method: path === '/' ? 'HEAD' : 'GET' });
      await response.arrayBuffer();
      expect(response.headers.get('link'), path).toBe(`<${url}/wp-json/>; rel="https://api.w.org/"`);
    }
  });

  it("without memory, builds a list's X-WP-TotalPages and Link from the example's total and the request", async () => {
    const stateless = await startMock('site', { port: 0, stateless: true });
    const url = stateless.url;
    const get = async (path: string) => {
      const response = await fetch(`${url}${path}`);
      await response.arrayBuffer();
      return response;
    };
    try {
      const first = await get('/wp-json/wp/v2/posts?per_page=20&search=x');
      const total = Number(first.headers.get('x-wp-total'));
      const pages = Math.ceil(total / 20);
      expect(pages).toBeGreaterThan(1);
      expect(first.headers.get('x-wp-totalpages')).toBe(String(pages));
      expect(first.headers.get('link')).toBe(
        `<${url}/wp-json/wp/v2/posts?per_page=20&search=x&page=2>; rel="next"`,
      );
      const last = await get(`/wp/v2/posts?page=${pages}&per_page=20`);
      expect(last.headers.get('link')).toBe(`<${url}/wp/v2/posts?page=${pages - 1}&per_page=20>; rel="prev"`);
      // The default page size is the spec's per_page default (10).
      const defaults = await get('/wp/v2/pages?page=2');
      expect(defaults.headers.get('x-wp-totalpages')).toBe(
        String(Math.ceil(Number(defaults.headers.get('x-wp-total')) / 10)),
      );
      expect(defaults.headers.get('link')).toContain(`<${url}/wp/v2/pages?page=1>; rel="prev"`);
    } finally {
      await stateless.close();
    }
  });

  it('reads every term-filter form WordPress reads, and refuses what WordPress refuses', async () => {
    const accepted = [
      'categories=1,2',
      'categories=1',
      'categories[]=1&categories[]=2',
      'categories[terms][]=1&categories[include_children]=true',
      'categories[terms]=1,2&categories[operator]=AND',
      'categories_exclude=1',
      'categories_exclude[]=1',
      'tags=3',
      'tags[]=3',
      'tags_exclude=3',
      'include[]=1&include[]=2',
    ];
    for (const query of accepted) {
      expect((await exchange('site', 'GET', `/wp/v2/posts?${query}`)).status, query).toBe(200);
    }
    const refused = [
      'categories=abc',
      'categories=',
      'categories[]=x',
      'categories[terms][]=x',
      'categories[operator]=XOR',
      'tags=1,x',
      'include[]=x',
      'per_page[]=2',
    ];
    for (const query of refused) {
      expect((await exchange('site', 'GET', `/wp/v2/posts?${query}`)).status, query).toBe(400);
    }
  });
});
