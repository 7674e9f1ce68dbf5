// The platform client against the reference server (apps/server), over HTTP: its rate limiter's 429 and
// Retry-After, its error bodies (toe), and paging through a real list.
import { unavailable } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformClient, PlatformApiError, paginate } from '../src/index.js';
import {
  type ReferenceServer,
  referenceServerProblem,
  startReferenceServer,
} from './support/reference-server.js';

/** The real fetch, with every answer's status noted: what the client's retries saw. */
function observedFetch() {
  const statuses: number[] = [];
  const fetch = async (request: Request) => {
    const response = await globalThis.fetch(request);
    statuses.push(response.status);
    return response;
  };
  return { fetch, statuses };
}

const problem = referenceServerProblem();
if (problem) {
  unavailable('the client against the reference server', problem);
} else {
  describe('against the reference server', () => {
    let server: ReferenceServer;
    let credentials: { clientId: string; clientSecret: string };

    beforeAll(async () => {
      // A small window, so that the limiter turns calls away and lets them in again within a second or two.
      server = await startReferenceServer({ PLATFORM_RATE_LIMIT: '3', PLATFORM_RATE_LIMIT_WINDOW: '1s' });
      credentials = await server.createClient('client-tests', ['user']);
    }, 90_000);
    afterAll(async () => {
      await server?.close();
    });

    it("rides out the rate limiter's 429s by waiting its Retry-After", async () => {
      const observed = observedFetch();
      const client = createPlatformClient({ baseUrl: server.url, ...credentials, fetch: observed.fetch });

      const statuses: number[] = [];
      for (let call = 0; call < 6; call++) statuses.push((await client.GET('/v1/users')).response.status);

      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
      expect(observed.statuses).toContain(429);
    });

    it("carries a real error's status, ApiError body and toe", async () => {
      const client = createPlatformClient({ baseUrl: server.url, ...credentials });
      const result = await client.GET('/v1/users/{id}', { params: { path: { id: 987654321 } } });
      expect(result.response.status).toBe(404);

      const error = PlatformApiError.from(result);
      expect(error.status).toBe(404);
      expect(error.body).toMatchObject({ status: 404 });
      expect(error.toe).toMatch(/\S/);
      expect(error.message).toContain(`(toe ${error.toe})`);
    });

    it('pages through a real list, ending at the short page', async () => {
      const client = createPlatformClient({
        baseUrl: server.url,
        ...credentials,
        // The limiter is not what this test is about.
        maxRetries: 5,
      });
      const created: number[] = [];
      for (let i = 0; i < 5; i++) {
        // A 429 means the user was not created: safe to repeat, so this call opts in.
        const { data, error, response } = await client
          .withOptions({ retryNonIdempotent: true })
          .POST('/v1/users', {
            body: { name: `Pager ${i}`, email: `pager${i}@example.com`, role: 'Participant' },
          });
        if (error) throw PlatformApiError.from({ error, response });
        created.push(data.id);
      }
      const observed = observedFetch();
      const pager = createPlatformClient({
        baseUrl: server.url,
        ...credentials,
        maxRetries: 5,
        fetch: observed.fetch,
      });

      const ids: number[] = [];
      for await (const user of paginate(pager, '/v1/users', { limit: 2 })) ids.push(user.id);

      expect(ids).toEqual(expect.arrayContaining(created));
      expect(new Set(ids).size).toBe(ids.length);
      // Pages of 2, the last one short: ceil(n / 2) pages, or one more for the empty page when n is even.
      const pages = observed.statuses.filter((status) => status === 200).length - 1; // minus the token
      expect(pages).toBe(Math.floor(ids.length / 2) + 1);
    });
  });
}
