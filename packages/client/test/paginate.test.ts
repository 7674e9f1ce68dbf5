import { describe, expect, it } from 'vitest';
import { createPlatformClient, PlatformApiError, paginate } from '../src/index.js';
import { fakePlatform, json, type RecordedRequest } from './fake-server.js';

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
  it('yields every item, advancing offset by the page length until an empty page', async () => {
    const platform = fakePlatform({ api: pagedList(users) });
    const client = createPlatformClient({ ...credentials, scopes: ['user'], fetch: platform.fetch });

    const seen: number[] = [];
    for await (const user of paginate(client, '/v1/users', { limit: 3 })) seen.push(user.id);

    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(
      platform.apiRequests.map((r) => [r.url.searchParams.get('limit'), r.url.searchParams.get('offset')]),
    ).toEqual([
      ['3', '0'],
      ['3', '3'],
      ['3', '6'],
      ['3', '7'],
    ]);
    expect(platform.tokenRequests).toHaveLength(1);
  });

  it("leaves limit to the server's default when not given, and stops early when the caller breaks", async () => {
    const platform = fakePlatform({ api: pagedList(users) });
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    for await (const user of paginate(client, '/v1/users')) {
      if (user.id === 2) break;
    }

    expect(platform.apiRequests).toHaveLength(1);
    expect(platform.apiRequests[0]?.url.searchParams.has('limit')).toBe(false);
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
    const client = createPlatformClient({ ...credentials, fetch: platform.fetch });

    const seen: unknown[] = [];
    const failure = await (async () => {
      for await (const user of paginate(client, '/v1/users', { limit: 5 })) seen.push(user);
    })().catch((error: unknown) => error);

    expect(seen).toHaveLength(5);
    expect(failure).toBeInstanceOf(PlatformApiError);
    expect(failure).toMatchObject({ status: 500, body: apiError });
  });
});
