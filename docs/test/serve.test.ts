// The docs server (`npm start` runs it) puts the reference server's real address where the build wrote
// the default one, when `PORT` or HTTPS moved the server: code samples, commands and the console follow.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serveDocs } from '../scripts/serve.mjs';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const defaults = join(dist, 'assets', 'default-servers.json');

describe('the docs server', () => {
  let site: { url: string; close(): Promise<void> } | undefined;
  let built = '';

  beforeAll(() => {
    expect(existsSync(defaults), 'build the docs first: pnpm --filter @platform-api/docs build').toBe(true);
    built = JSON.parse(readFileSync(defaults, 'utf8')).platform;
    expect(built).toMatch(/^http:\/\/localhost:\d+$/);
  });

  afterEach(async () => {
    await site?.close();
    site = undefined;
  });

  const text = async (path: string) => (await fetch(`${site?.url}/${path}`)).text();

  it('serves the pages as built when the server runs where they point', async () => {
    site = await serveDocs({ port: 0 });
    expect(await text('platform.html')).toContain(`data-default-server="${built}"`);
    expect(await text('guides/getting-started.html')).toContain(built);
  });

  it("puts the server's real address in the pages, the console and the scripts when it moved", async () => {
    const moved = 'https://localhost:3100';
    site = await serveDocs({ port: 0, platformServer: `${moved}/` });
    for (const path of [
      'platform.html',
      'console.html',
      'index.html',
      'guides/getting-started.html',
      'assets/spec-platform.js',
      'assets/search-index.js',
    ]) {
      const page = await text(path);
      expect(page, path).toContain(moved);
      expect(page, path).not.toContain(built);
    }
    expect(await text('platform.html')).toContain(`data-default-server="${moved}"`);
    // Other servers are left alone (the content site's default is WordPress's).
    expect(await text('site.html')).toContain('http://localhost:8080/wp-json');
  });
});
