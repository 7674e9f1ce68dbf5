import { describe, expect, it } from 'vitest';
import { retryOverload } from '../examples/usage.js';
import { createPlatformClient } from '../src/index.js';
import { fakePlatform, json } from './fake-server.js';

// The README's retry middleware, run against an injected fetch.

describe('retry middleware example', () => {
  it('retries 429/503 after Retry-After, resending the body, and gives up after three retries', async () => {
    let answered = 0;
    const platform = fakePlatform({
      api: () => {
        answered += 1;
        return answered <= 2
          ? json({ status: 429, statusReason: 'Too Many Requests', toe: '' }, 429, { 'Retry-After': '0.01' })
          : json({ id: 1, name: 'Ada', email: 'ada@example.com', role: 'Admin' }, 201);
      },
    });
    const client = createPlatformClient({
      baseUrl: 'https://api.test',
      clientId: 'c',
      clientSecret: 's',
      fetch: platform.fetch,
    });
    client.use(retryOverload(platform.fetch));

    const { response } = await client.POST('/v1/users', {
      body: { name: 'Ada', email: 'ada@example.com', role: 'Admin' },
    });

    expect(response.status).toBe(201);
    expect(platform.apiRequests).toHaveLength(3);
    expect(platform.apiRequests.map((r) => JSON.parse(r.body).name)).toEqual(['Ada', 'Ada', 'Ada']);

    const alwaysBusy = fakePlatform({ api: () => json({}, 503, { 'Retry-After': '0.01' }) });
    const busyClient = createPlatformClient({
      baseUrl: 'https://api.test',
      clientId: 'c',
      clientSecret: 's',
      fetch: alwaysBusy.fetch,
    });
    busyClient.use(retryOverload(alwaysBusy.fetch));
    expect((await busyClient.GET('/v1/users')).response.status).toBe(503);
    expect(alwaysBusy.apiRequests).toHaveLength(4);
  });

  it('does not retry other errors', async () => {
    const platform = fakePlatform({
      api: () => json({ status: 404, statusReason: 'Not Found', toe: '' }, 404),
    });
    const client = createPlatformClient({
      baseUrl: 'https://api.test',
      clientId: 'c',
      clientSecret: 's',
      fetch: platform.fetch,
    });
    client.use(retryOverload(platform.fetch));
    expect((await client.GET('/v1/users/{id}', { params: { path: { id: 9 } } })).response.status).toBe(404);
    expect(platform.apiRequests).toHaveLength(1);
  });
});
