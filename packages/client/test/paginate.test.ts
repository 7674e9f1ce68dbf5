import { type MockServer, startMock } from '@platform-api/mock';
import { freePort } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformClient, PlatformApiError, paginate } from '../src/index.js';
import { fakePlatform, json, type RecordedRequest } from './support/fake-fetch.js';

const credentials = { baseUrl: 'https://api.test', clientId: 'c', clientSecret: 's' };

/** Serves `items` as an offset-paged list the way the platform does: past the end, []. */
function pagedList(items: readonly unknown[]) {
  return (request: RecordedRequest) => {
    const limit = Number(request.url.searchParams.get('limit') ?? 50);
    const offset = Number(request.url.searchParams.get('offset') ?? 0);
    return json(items.slice(offset, offset + limit));
  };
}

const users = Array.from({ length: 7 }, (_, i) => ({
  id: i + 1,
  name: `User ${i + 1}`,
  email: `u${i + 1}@example.com`,
  role: 'Participant',
}));

describe('paginate', () => {
  it('yields every item, advancing offset by the page length, and stops at a page shorter than limit', async () => {
    const platform = fakePlatform({ api: pagedList(users) });
    const client = createPlatformClient({ ...credentials, scopes: ['user'], fetch: platform.fetch });

    const seen: number[] = [];
    for await (const user of paginate(client, '/v1/users', { limit: 3 })) seen.push(user.id);

    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // 7 items by 3: the third page holds one, so no fourth request for an empty page.
    expect(
      platform.apiRequests.map((r) => [r.url.searchParams.get('limit'), r.url.searchParams.get('offset')]),
    ).toEqual([
      ['3', '0'],
      ['3', '3'],
      ['3', '6'],
    ]);
    expect(platform.tokenRequests).toHaveLength(1);
  });

  it('asks once more when the last page is full, and stops at the empty one', async () => {
    const platform = fakePlatform({ api: pagedList(users.slice(0, 6)) });
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    const seen: number[] = [];
    for await (const user of paginate(client, '/v1/users', { limit: 3 })) seen.push(user.id);

    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    expect(platform.apiRequests.map((r) => r.url.searchParams.get('offset'))).toEqual(['0', '3', '6']);
  });

  it("without limit, leaves it to the server and takes the spec's default (50) as the page size", async () => {
    const many = Array.from({ length: 120 }, (_, i) => ({ ...users[0], id: i + 1 }));
    const platform = fakePlatform({ api: pagedList(many) });
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    let count = 0;
    for await (const _ of paginate(client, '/v1/users')) count += 1;

    expect(count).toBe(120);
    expect(platform.apiRequests.map((r) => r.url.searchParams.get('offset'))).toEqual(['0', '50', '100']);
    expect(platform.apiRequests.every((r) => !r.url.searchParams.has('limit'))).toBe(true);
  });

  it('stops fetching when the caller breaks out of the loop', async () => {
    const platform = fakePlatform({ api: pagedList(users) });
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    for await (const user of paginate(client, '/v1/users', { limit: 3 })) {
      if (user.id === 2) break;
    }

    expect(platform.apiRequests).toHaveLength(1);
  });

  it('fills path parameters and passes other query parameters through', async () => {
    const platform = fakePlatform({ api: pagedList([11, 12, 13]) });
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    const memberIds: number[] = [];
    for await (const id of paginate(client, '/v1/groups/{id}/users', { path: { id: 9 }, limit: 2 })) {
      memberIds.push(id);
    }

    expect(memberIds).toEqual([11, 12, 13]);
    expect(platform.apiRequests[0]?.url.pathname).toBe('/v1/groups/9/users');
  });

  it('throws a PlatformApiError with the error body when a page fails', async () => {
    const apiError = { status: 500, statusReason: 'Internal Server Error', toe: 'T-1' };
    const platform = fakePlatform({
      api: (request) =>
        request.url.searchParams.get('offset') === '0' ? json(users.slice(0, 5)) : json(apiError, 500),
    });
    const client = createPlatformClient({ ...credentials, maxRetries: 0, fetch: platform.fetch });

    const seen: unknown[] = [];
    const failure = await (async () => {
      for await (const user of paginate(client, '/v1/users', { limit: 5 })) seen.push(user);
    })().catch((error: unknown) => error);

    expect(seen).toHaveLength(5);
    expect(failure).toBeInstanceOf(PlatformApiError);
    expect(failure).toMatchObject({ status: 500, body: apiError, toe: 'T-1' });
    expect((failure as Error).message).toBe(
      'GET /v1/users (offset 5) answered 500 Internal Server Error (toe T-1)',
    );
  });
});

describe('paginate against the Prism mock (stateless: every page is the same example)', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMock('platform', { port: await freePort() });
  }, 60_000);
  afterAll(async () => {
    await mock?.close();
  });

  it('ends after the first page, which is shorter than limit', async () => {
    const client = createPlatformClient({ baseUrl: mock.url, clientId: 'c', clientSecret: 's' });
    const example = (await client.GET('/v1/users', { params: { query: { limit: 500 } } })).data ?? [];
    expect(example.length).toBeGreaterThan(0);

    const seen = [];
    for await (const user of paginate(client, '/v1/users', { limit: 500 })) seen.push(user);
    expect(seen).toEqual(example);
  });
});
