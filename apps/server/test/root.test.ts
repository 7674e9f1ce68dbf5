import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';

describe('GET / (sqlite)', () => {
  let withDocs: TestServer;
  let withoutDocs: TestServer;
  beforeAll(async () => {
    withDocs = await startTestServer('sqlite', { docsUrl: 'http://localhost:4000/' });
    withoutDocs = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await withDocs?.close();
    await withoutDocs?.close();
  });

  it('names the API and links to the docs and to entry points that answer', async () => {
    const root = await withDocs.call('GET', '/');
    expect(root.status).toBe(200);
    expect(root.body).toMatchObject({
      title: 'Analytics Platform API',
      links: { docs: 'http://localhost:4000/', health: '/healthz', readiness: '/readyz' },
    });
    for (const link of ['health', 'readiness', 'jwks'] as const) {
      expect((await withDocs.call('GET', root.body.links[link])).status).toBe(200);
    }
    // The token endpoint wants credentials: without them it answers, but refuses.
    expect((await withDocs.call('POST', root.body.links.token)).status).toBe(401);
  });

  it('leaves the docs link out when the server is not told where the docs are', async () => {
    const root = await withoutDocs.call('GET', '/');
    expect(root.status).toBe(200);
    expect(root.body.links.docs).toBeUndefined();
  });
});
