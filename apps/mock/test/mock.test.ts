// The launcher: Prism comes up on the bundled spec, answers from its examples, rejects invalid
// requests with 4xx, and stops cleanly (the port is free again). The full contract suite against
// the mocks lives in @platform-api/contract-tests.
import { freePort, portIsFree } from '@platform-api/test-support';
import { describe, expect, it } from 'vitest';
import { startMock } from '../src/index.js';

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
