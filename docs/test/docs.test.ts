// Opens the built docs in a real browser (Debian's Chromium through playwright-core) and checks that
// what the public platform bundle describes is on the page: every operation, every webhook, and none
// of the internal operations. Screenshots go to test-results/.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTTP_METHODS } from '@platform-api/validator';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error — plain ESM script without type declarations
import { serveDocs } from '../scripts/serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const results = join(here, '..', 'test-results');
const require = createRequire(import.meta.url);

type Doc = {
  tags?: Array<{ name: string }>;
  paths?: Record<string, Record<string, { summary?: string; tags?: string[] }>>;
  webhooks?: Record<string, Record<string, { summary?: string; tags?: string[] }>>;
};
const readBundle = (name: string): Doc =>
  JSON.parse(readFileSync(require.resolve(`@platform-api/spec/${name}.openapi.json`), 'utf8'));
const summaries = (items: Doc['paths']) =>
  Object.values(items ?? {}).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => (HTTP_METHODS as readonly string[]).includes(method))
      .map(([, operation]) => operation.summary)
      .filter((summary): summary is string => typeof summary === 'string'),
  );

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const browserAvailable = existsSync(chromiumPath);
if (!browserAvailable) {
  const why = `Chromium not found at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`;
  if (process.env.CI === 'true') throw new Error(`docs browser test cannot run under CI: ${why}`);
  console.warn(`\n*** SKIPPED: docs browser tests — ${why} ***\n`);
}

describe.skipIf(!browserAvailable)('docs in Chromium', () => {
  let browser: Browser;
  let site: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    mkdirSync(results, { recursive: true });
    site = await serveDocs({ port: 0 });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('lists every public platform operation and webhook, and no internal operation', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    // Work offline: every request that leaves this machine is aborted and recorded. Only Redoc's
    // "API docs by" badge image may try (it hides itself when it cannot load).
    const external: string[] = [];
    await page.route(
      (url) =>
        !['127.0.0.1', 'localhost'].includes(url.hostname) &&
        url.protocol !== 'blob:' &&
        url.protocol !== 'data:',
      (route) => {
        const request = route.request();
        if (request.resourceType() !== 'image') external.push(`${request.resourceType()} ${request.url()}`);
        return route.abort();
      },
    );
    await page.goto(`${site.url}/platform.html`);
    await page.waitForSelector('.menu-content', { timeout: 30_000 });
    const publicDoc = readBundle('platform-public');
    // Redoc shows a tag's operations once the tag is opened: open each, as a reader would.
    let menu = '';
    for (const { name } of publicDoc.tags ?? []) {
      await page.locator('.menu-content').getByText(name, { exact: true }).first().click();
      // Opened once the menu lists the tag's operations.
      const [firstOperation] = [
        ...Object.values(publicDoc.paths ?? {}),
        ...Object.values(publicDoc.webhooks ?? {}),
      ]
        .flatMap((item) => Object.values(item))
        .filter((operation) => operation.tags?.includes(name) && typeof operation.summary === 'string')
        .map((operation) => operation.summary as string);
      if (firstOperation)
        await page.locator('.menu-content').getByText(firstOperation, { exact: true }).first().waitFor();
      menu += `${await page.locator('.menu-content').innerText()}\n${await page.locator('.api-content').innerText()}\n`;
    }

    const operations = summaries(publicDoc.paths);
    const webhooks = summaries(publicDoc.webhooks);
    expect(operations.length).toBeGreaterThan(20);
    expect(webhooks).toHaveLength(5);
    const lines = new Set(menu.split('\n').map((line) => line.trim()));
    for (const summary of [...operations, ...webhooks]) expect(lines).toContain(summary);

    const publicSummaries = new Set(operations);
    const internal = summaries(readBundle('platform').paths).filter(
      (summary) => !publicSummaries.has(summary),
    );
    expect(internal.length).toBeGreaterThan(0);
    for (const summary of internal) expect(lines).not.toContain(summary);

    await page.screenshot({ path: join(results, 'platform.png') });
    expect(external, 'scripts, styles and data must all be inlined').toEqual([]);
  }, 60_000);

  it('links both references and the guides from the index page', async () => {
    const page = await browser.newPage();
    await page.goto(`${site.url}/index.html`);
    const hrefs = await page
      .locator('a')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(hrefs).toEqual(
      expect.arrayContaining([
        'platform.html',
        'site.html',
        'guides/getting-started.html',
        'guides/events.html',
        'guides/delivery.html',
        'guides/benchmarks.html',
      ]),
    );
    await page.goto(`${site.url}/site.html`);
    await page.waitForSelector('.menu-content', { timeout: 30_000 });
    expect(await page.locator('.menu-content').innerText()).toMatch(/posts/i);
    await page.screenshot({ path: join(results, 'site.png') });
  }, 60_000);
});
