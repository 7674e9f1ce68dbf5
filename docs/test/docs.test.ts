// Opens every page of the built docs in a real browser (Debian's Chromium through playwright-core), served
// by the docs' own server, and checks what a reader would meet: the page renders with no console error,
// no request leaves 127.0.0.1, axe-core finds no serious or critical accessibility violation, and every
// link leads somewhere (a page that answers 200, an anchor that exists, a Redoc route that resolves).
// It also checks that the references show what the bundles describe. Screenshots go to test-results/.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPlatformClient } from '@platform-api/client';
import { startMock } from '@platform-api/mock';
import {
  type ReferenceServer,
  startReferenceServer,
  startTimeoutMs,
  unavailable,
} from '@platform-api/test-support';
import { HTTP_METHODS } from '@platform-api/validator';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveDocs } from '../scripts/serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const serverCli = join(here, '..', '..', 'apps', 'server', 'dist', 'cli.js');
const dist = join(here, '..', 'dist');
const results = join(here, '..', 'test-results');
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

type Operation = { summary?: string; tags?: string[]; requestBody?: unknown };
type Doc = {
  info?: { contact?: { url?: string }; license?: { url?: string } };
  externalDocs?: { url?: string };
  tags?: Array<{ name: string; externalDocs?: { url?: string } }>;
  paths?: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, Record<string, Operation>>;
  components?: { examples?: Record<string, { value?: unknown }> };
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

/** The Redoc pages (they render client-side and route with `#/…`). */
/** Where the reference's code samples and console point until the reader picks another server. */
const defaultServer = 'http://localhost:3000';
const redocPages = new Set(['platform.html', 'site.html']);

/** Every page of the build, as a path from the site root. */
function builtPages(dir = dist): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? builtPages(join(dir, entry.name))
      : entry.name.endsWith('.html')
        ? [relative(dist, join(dir, entry.name))]
        : [],
  );
}
const pages = builtPages().sort();

/**
 * External links a page may carry (never requested: the test aborts any request off this machine).
 * Those the API descriptions state themselves (contact, licence, external docs) are the spec's
 * business; the rest are listed with the reason.
 */
const allowedExternal = new Map<string, string>([
  ['https://www.standardwebhooks.com', 'the signature scheme, cited by apps/server/docs/delivery.md'],
]);
/** Upstream issues and pull requests of the code generators, cited by guides/generators.md. */
const allowedExternalIssues = [
  'https://github.com/OpenAPITools/openapi-generator/',
  'https://github.com/openapi-generators/openapi-python-client/',
];
const isAllowedExternal = (link: string) =>
  allowedExternal.has(link.replace(/\/$/, '')) ||
  allowedExternal.has(link) ||
  allowedExternalIssues.some(
    (repository) => link.startsWith(repository) && /^(issues|pull)\/\d+$/.test(link.slice(repository.length)),
  );
for (const name of ['platform-public', 'site']) {
  const bundle = readBundle(name);
  for (const url of [
    bundle.info?.contact?.url,
    bundle.info?.license?.url,
    bundle.externalDocs?.url,
    ...(bundle.tags ?? []).map((tag) => tag.externalDocs?.url),
  ]) {
    if (url) allowedExternal.set(url, `stated by the ${name} API description`);
  }
}

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const browserAvailable = existsSync(chromiumPath);
if (!browserAvailable) {
  unavailable(
    'docs site in Chromium',
    `Chromium not found at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`,
    { registerSkipped: (title) => describe.skip(title, browserSuite) },
  );
} else describe('docs site in Chromium', browserSuite);

type Visit = { links: string[]; ids: Set<string> };
/** What went wrong while a page was open: requests off the machine, failed requests, console errors. */
type Problems = { offMachine: string[]; failed: string[]; console: string[] };

function browserSuite() {
  let browser: Browser;
  let site: { url: string; close(): Promise<void> };
  /** The reference server the console calls (CORS granted to the docs' origin, as its option says). */
  let server: ReferenceServer;
  /** What each page showed: its links (absolute URLs) and its element ids. */
  const visits = new Map<string, Visit>();

  beforeAll(async () => {
    expect(pages, 'build the docs first: pnpm --filter @platform-api/docs build').toContain('index.html');
    mkdirSync(results, { recursive: true });
    site = await serveDocs({ port: 0 });
    expect(existsSync(serverCli), 'build the server first: pnpm exec turbo run build').toBe(true);
    server = await startReferenceServer(serverCli, { env: { PLATFORM_CORS_ORIGINS: site.url } });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      timeout: startTimeoutMs(),
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
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await server?.close();
  });

  /**
   * A page with every request that leaves 127.0.0.1 aborted and recorded, every failed or non-2xx
   * local request recorded, and console errors and uncaught exceptions collected.
   */
  async function openPage(colorScheme: 'light' | 'dark' = 'light') {
    const context = await browser.newContext({
      viewport: { width: 1400, height: 1000 },
      serviceWorkers: 'block',
      colorScheme,
    });
    const page = await context.newPage();
    // Every wait and action of the page, sized for a loaded machine like the services' starts.
    page.setDefaultTimeout(startTimeoutMs());
    const problems: Problems = { offMachine: [], failed: [], console: [] };
    await context.route(
      (url) => url.hostname !== '127.0.0.1',
      (route) => {
        problems.offMachine.push(`${route.request().resourceType()} ${route.request().url()}`);
        return route.abort();
      },
    );
    page.on('requestfailed', (request) => {
      if (new URL(request.url()).hostname === '127.0.0.1')
        problems.failed.push(`${request.url()}: ${request.failure()?.errorText}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) problems.failed.push(`${response.url()}: HTTP ${response.status()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.console.push(message.text());
    });
    page.on('pageerror', (error) => problems.console.push(`uncaught: ${error.message}`));
    return { page, problems, close: () => context.close() };
  }

  async function settle(page: Page, path: string) {
    if (redocPages.has(path.split('#')[0] ?? path)) {
      await page.waitForSelector('.menu-content');
      // Redoc builds its search index after the first render ("Loading..." in the search box).
      await page.waitForFunction(() => !document.body.innerText.includes('Loading...'));
    }
    await page.waitForLoadState('networkidle');
  }

  /** axe-core's serious and critical violations on the page as it is now. */
  async function seriousViolations(page: Page) {
    await page.addScriptTag({ content: axeSource });
    const violations = await page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: {
            run(context: Document): Promise<{
              violations: Array<{
                id: string;
                impact: string | null;
                help: string;
                nodes: Array<{ html: string }>;
              }>;
            }>;
          };
        }
      ).axe;
      const { violations } = await axe.run(document);
      return violations.map(({ id, impact, help, nodes }) => ({
        id,
        impact,
        help,
        nodes: nodes.slice(0, 3).map((node) => node.html.slice(0, 160)),
      }));
    });
    return violations.filter(({ impact }) => impact === 'serious' || impact === 'critical');
  }

  /** Opens `path` in a fresh context, waits until it has settled, runs `use` on it, and closes the context. */
  async function visit(
    path: string,
    use: (page: Page, problems: Problems) => Promise<void>,
    colorScheme: 'light' | 'dark' = 'light',
  ) {
    const { page, problems, close } = await openPage(colorScheme);
    try {
      await page.goto(`${site.url}/${path}`);
      await settle(page, path);
      await use(page, problems);
    } finally {
      await close();
    }
  }

  it('builds a site whose every page is linked from the landing page', () => {
    // The pages are found from the build, not listed here: a new page is checked without editing this.
    expect(pages).toEqual(
      expect.arrayContaining([
        'index.html',
        'platform.html',
        'site.html',
        'changelog.html',
        'guides/getting-started.html',
        'guides/events.html',
        'guides/delivery.html',
        'guides/benchmarks.html',
      ]),
    );
  });

  it.each(pages)(
    '%s: renders offline with no console error and no serious accessibility violation',
    async (path) => {
      await visit(path, async (page, problems) => {
        await page.screenshot({
          path: join(results, `${path.replace(/\//g, '_').replace(/\.html$/, '')}.png`),
          // Redoc pages are thousands of pixels long: the first screen shows what matters.
          fullPage: !redocPages.has(path),
        });

        const serious = await seriousViolations(page);

        const links = await page
          .locator('a[href]')
          .evaluateAll((anchors) => anchors.map((anchor) => (anchor as HTMLAnchorElement).href));
        const ids = await page
          .locator('[id], a[name]')
          .evaluateAll((elements) =>
            elements.map((element) => element.id || element.getAttribute('name') || ''),
          );
        visits.set(path, { links, ids: new Set(ids) });

        expect(problems.offMachine, 'requests that left 127.0.0.1').toEqual([]);
        expect(problems.failed, 'local requests that failed').toEqual([]);
        expect(problems.console, 'console errors').toEqual([]);
        expect(serious, 'serious or critical axe-core violations').toEqual([]);
        expect(links.length).toBeGreaterThan(0);
      });
    },
    120_000,
  );

  it('every link of every page leads somewhere', async () => {
    expect([...visits.keys()].sort(), 'the per-page tests ran first').toEqual(pages);
    const broken: string[] = [];
    const redocRoutes = new Map<string, Set<string>>();
    const statusOf = new Map<string, number>();
    const reachable = new Set(['index.html']);
    for (const [from, { links }] of visits) {
      for (const link of new Set(links)) {
        const url = new URL(link);
        if (url.protocol === 'mailto:') continue;
        if (url.origin !== site.url) {
          if (!isAllowedExternal(link)) broken.push(`${from}: external link ${link}`);
          continue;
        }
        const target = url.pathname.replace(/^\//, '') || 'index.html';
        if (!statusOf.has(target))
          statusOf.set(target, (await fetch(new URL(url.pathname, site.url))).status);
        if (statusOf.get(target) !== 200) {
          broken.push(`${from}: ${link} answers ${statusOf.get(target)}`);
          continue;
        }
        reachable.add(target);
        if (!url.hash) continue;
        if (redocPages.has(target) && url.hash.startsWith('#/')) {
          // A Redoc route; what follows a second '#' is a place within the route's page.
          const route = url.hash.split('#')[1] ?? '';
          redocRoutes.set(target, (redocRoutes.get(target) ?? new Set()).add(`#${route}`));
          continue;
        }
        const id = decodeURIComponent(url.hash.slice(1));
        if (!visits.get(target)?.ids.has(id)) broken.push(`${from}: ${link} — no element with id "${id}"`);
      }
    }

    // Redoc routes: opening each must show its content, not Redoc's "not found" page. A route known
    // not to exist is the control that this check can fail.
    for (const [path, routes] of redocRoutes) {
      await visit(path, async (page, problems) => {
        for (const route of [...routes, '#/no-such-route']) {
          await page.evaluate((hash) => {
            window.location.hash = hash;
          }, route);
          // Redoc's 404 has the class not-found-page; a resolved route marks its menu entry active.
          const state = await page.waitForFunction((hash) => {
            if (document.querySelector('.not-found-page')) return 'not found';
            const entry = [...document.querySelectorAll('a[href]')].find(
              (a) => a.getAttribute('href') === hash,
            );
            if (entry?.querySelector('[data-active="true"]')) return 'ok';
            // Routes without a menu entry of their own (the API's overview, '#/') render the info section.
            if (hash === '#/' && document.querySelector('h1')) return 'ok';
            return false;
          }, route);
          const outcome = await state.jsonValue();
          if (route === '#/no-such-route')
            expect(outcome, 'the route check must see a missing route').toBe('not found');
          else if (outcome !== 'ok') broken.push(`${path}${route}: Redoc route ${outcome}`);
        }
        expect(problems.console).toEqual([]);
        expect(problems.offMachine).toEqual([]);
      });
    }
    // At least one route per tag of the reference (the menu lists the tags).
    expect(redocRoutes.get('platform.html')?.size ?? 0).toBeGreaterThanOrEqual(
      readBundle('platform-public').tags?.length ?? 1,
    );

    expect(broken).toEqual([]);
    // One site: every built page can be reached by following links.
    expect([...reachable].filter((path) => pages.includes(path)).sort()).toEqual(pages);
  }, 300_000);

  it('lists every public platform operation and webhook, and no internal operation', async () => {
    await visit('platform.html', async (page) => {
      const publicDoc = readBundle('platform-public');
      // Redoc shows a tag's operations once the tag is opened: open each by its menu link. The link's
      // address is followed rather than clicked: a click can land on an entry that the previous tag's
      // opening is still moving down the menu, and open that instead.
      let menu = '';
      for (const { name } of publicDoc.tags ?? []) {
        const link = page
          .locator('.menu-content a[href]')
          .filter({ has: page.getByText(name, { exact: true }) })
          .first();
        const address = await link.getAttribute('href');
        expect(address, `the menu links tag ${name}`).toMatch(/^#\//);
        await page.evaluate((hash) => {
          window.location.hash = hash;
        }, address as string);
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
    });
  }, 120_000);

  it('fills the local server into the code samples, TypeScript first, wrapped', async () => {
    await visit('platform.html#/users/listusers', async (page, problems) => {
      const sample = page.locator('#redoc pre').filter({ hasText: 'createPlatformClient' }).first();
      await sample.waitFor();
      expect(await sample.innerText()).toContain(`'${defaultServer}'`);
      // Wrapped: the panel does not scroll sideways.
      expect(await sample.evaluate((pre) => pre.scrollWidth <= pre.clientWidth + 1)).toBe(true);
      // Servers: the templated production server shows its default address, not `{base_url}` resolved
      // against the docs' own address; the local server is the one selected.
      await page.getByRole('button', { name: 'GET /v1/users', exact: true }).click();
      const production = readBundle('platform-public') as {
        servers?: Array<{ variables?: Record<string, { default: string }> }>;
      };
      const base = production.servers?.[0]?.variables?.base_url?.default;
      expect(base).toBeDefined();
      const servers = await page.locator('#redoc').innerText();
      expect(servers).toContain(`${base}/v1/users`);
      expect(servers).toContain(`${defaultServer}/v1/users`);
      expect(servers).not.toContain('{base_url}');
      await page.keyboard.press('Escape');
      // The deep link left the site's header in view above the operation.
      const header = await page.locator('.site-header').boundingBox();
      expect(header?.y).toBe(0);
      await page.screenshot({ path: join(results, 'platform_samples.png') });
      expect(problems.console).toEqual([]);
      expect(problems.offMachine).toEqual([]);
    });
  }, 120_000);

  it("sends a request from the reference's console to the reference server and shows the answer", async () => {
    const client = await server.createClient('docs', ['user']);
    const platform = createPlatformClient({ baseUrl: server.url, ...client, scopes: ['user'] });
    const email = `ada.${Date.now()}@example.com`;
    const created = await platform.POST('/v1/users', {
      body: { name: 'Ada Console', email, role: 'Participant' },
    });
    expect(created.response.status).toBe(201);

    await visit('platform.html#/users/listusers', async (page, problems) => {
      await page.getByRole('button', { name: 'Try it', exact: true }).click();
      // The console loaded before the server changes: the reload below would otherwise abort its script,
      // which `problems.failed` counts (seen in CI on a busy machine).
      await page
        .frameLocator('iframe.try-it-frame')
        .getByRole('button', { name: /Authorize/ })
        .first()
        .waitFor();
      // A custom server: the page reloads with the samples naming it, the panel still open.
      await page.locator('#try-it-server').selectOption('');
      await page.locator('#try-it-custom').fill(server.url);
      await Promise.all([
        page.waitForEvent('load'),
        page.getByRole('button', { name: 'Use this server' }).click(),
      ]);
      await settle(page, 'platform.html');
      const sample = page.locator('#redoc pre').filter({ hasText: 'createPlatformClient' }).first();
      expect(await sample.innerText()).toContain(`'${server.url}'`);

      const console = page.frameLocator('iframe.try-it-frame');
      await console
        .getByRole('button', { name: /Authorize/ })
        .first()
        .click();
      // The client-credentials flow of the description's oauth2 scheme, with the scope the operation needs.
      const oauth = console.locator('.auth-container').filter({ hasText: 'clientCredentials' });
      await oauth.locator('#client_id_clientCredentials').fill(client.clientId);
      await oauth.locator('#client_secret_clientCredentials').fill(client.clientSecret);
      await oauth.locator('label[for="user-clientCredentials-checkbox-oauth2"]').click();
      await oauth.getByRole('button', { name: 'Apply given OAuth2 credentials' }).click();
      // Swagger UI fetched a token from the server's /oauth/token (HTTP Basic) and offers to log out.
      await oauth.getByRole('button', { name: 'Remove authorization' }).waitFor();
      await oauth.getByRole('button', { name: 'Close' }).click();

      await console.getByRole('button', { name: 'Execute' }).click();
      const live = console.locator('.live-responses-table');
      const status = live.locator('tr.response .response-col_status');
      await status.waitFor();
      expect((await status.innerText()).trim()).toBe('200');
      expect(await live.innerText()).toContain(email);
      await status.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(results, 'platform_try-it.png') });
      expect(problems.console).toEqual([]);
      expect(problems.failed).toEqual([]);
      expect(problems.offMachine).toEqual([]);
    });
  }, 180_000);

  it("sends a request from the site reference's console to the site mock", async () => {
    const mock = await startMock('site', { port: 0 });
    try {
      await visit('site.html#/posts/listposts', async (page, problems) => {
        await page.getByRole('button', { name: 'Try it', exact: true }).click();
        await page.locator('#try-it-server').selectOption('');
        await page.locator('#try-it-custom').fill(mock.url);
        await Promise.all([
          page.waitForEvent('load'),
          page.getByRole('button', { name: 'Use this server' }).click(),
        ]);
        // The console is ready when its Execute button is: under CI's load the reloaded page's network did
        // not fall idle within minutes, and nothing this test asserts depends on it.
        await page.waitForSelector('.menu-content');
        const console = page.frameLocator('iframe.try-it-frame');
        // Reading posts needs no credentials (the operation's security allows none).
        await console.getByRole('button', { name: 'Execute' }).click();
        const status = console.locator('.live-responses-table tr.response .response-col_status');
        await status.waitFor();
        expect((await status.innerText()).trim()).toBe('200');
        expect(problems.console).toEqual([]);
        expect(problems.offMachine).toEqual([]);
      });
    } finally {
      await mock.close();
    }
  }, 180_000);

  it('sends a test event of a webhook page to the URL the reader gives', async () => {
    const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const to = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    try {
      await visit('platform.html#/chat-events/onmessageposted', async (page, problems) => {
        await page.getByRole('button', { name: 'Try it', exact: true }).click();
        await page.getByLabel('Receiver URL').fill(to);
        expect(await page.locator('.try-it-webhook pre code').innerText()).toBe(
          `node apps/mock/dist/cli.js trigger MESSAGE_POSTED --to ${to}`,
        );
        await page.getByRole('button', { name: 'Send a test MESSAGE_POSTED event' }).click();
        await page.locator('.try-it-output').filter({ hasText: 'Delivered' }).waitFor();
        expect(await page.locator('.try-it-output').innerText()).toContain('the receiver answered 204');
        expect(problems.console).toEqual([]);
      });
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
    expect(received).toHaveLength(1);
    expect(received[0]?.headers['x-chat-event-type']).toBe('MESSAGE_POSTED');
    expect(received[0]?.headers['webhook-signature']).toMatch(/^v1,/);
    expect(JSON.parse(received[0]?.body ?? '{}').event?.type).toBe('MESSAGE_POSTED');
  }, 120_000);

  it('gives the guides search, copy buttons, dark mode and TypeScript beside curl', async () => {
    await visit('guides/getting-started.html', async (page, problems) => {
      // TypeScript from the spec's samples, pointed at the local server like the curl commands.
      const typescript = page.locator('pre code.language-typescript');
      expect(await typescript.count()).toBeGreaterThan(0);
      expect(await typescript.first().innerText()).toContain(`'${defaultServer}'`);
      expect(await page.locator('main pre').count()).toBe(
        await page.locator('main .code-block button.copy-button').count(),
      );

      await page.getByRole('searchbox', { name: 'Search the guides' }).fill('insufficient_scope');
      const results = page.locator('#site-search-results a');
      await results.first().waitFor();
      expect(await results.evaluateAll((links) => links.map((link) => link.getAttribute('href')))).toContain(
        '../guides/getting-started.html#scopes',
      );

      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const light = await background();
      await page.getByRole('button', { name: 'Dark mode' }).click();
      expect(await background()).not.toBe(light);
      expect(await page.evaluate(() => localStorage.getItem('redoc.colorMode'))).toBe('dark');
      expect(await seriousViolations(page), 'serious or critical axe-core violations, dark mode').toEqual([]);
      expect(problems.console).toEqual([]);
    });
  }, 60_000);

  it('shows the console dark when the system is, and lets a pick made elsewhere on the site win', async () => {
    const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    let dark = '';
    await visit(
      'console.html?api=platform',
      async (page, problems) => {
        await page.locator('.swagger-ui .opblock').first().waitFor();
        // html.dark: the site's dark style; html.dark-mode: Swagger UI's own.
        expect(await page.evaluate(() => document.documentElement.className)).toMatch(
          /\bdark\b.*\bdark-mode\b/,
        );
        dark = await background(page);
        expect(await seriousViolations(page), 'serious or critical axe-core violations, dark mode').toEqual(
          [],
        );
        // The reader picks light on another page of the site (Redoc's toggle, a guide's button).
        await page.evaluate(() => localStorage.setItem('redoc.colorMode', 'light'));
        await page.reload();
        await page.locator('.swagger-ui .opblock').first().waitFor();
        expect(await page.evaluate(() => document.documentElement.classList.contains('dark-mode'))).toBe(
          false,
        );
        expect(await background(page)).not.toBe(dark);
        expect(problems.console).toEqual([]);
      },
      'dark',
    );
  }, 60_000);

  it("names a path's own parameters in the console of one operation", async () => {
    await visit('console.html?api=platform&op=getUser&embed=1', async (page, problems) => {
      const names = page.locator('.swagger-ui .parameters-col_name');
      await names.nth(1).waitFor();
      expect((await names.allInnerTexts()).slice(1).join('\n')).toMatch(/^id\b[\s\S]*\(path\)/);
      expect(problems.console).toEqual([]);
    });
  }, 60_000);

  it('shows the content site reference', async () => {
    await visit('site.html', async (page) => {
      expect(await page.locator('.menu-content').innerText()).toMatch(/posts/i);
    });
  }, 60_000);

  it("shows each webhook's payload example from the bundle on the events page", async () => {
    await visit('guides/events.html', async (page) => {
      const publicDoc = readBundle('platform-public');
      const examples = publicDoc.components?.examples ?? {};
      const blocks = (await page.locator('pre code.language-json').allInnerTexts()).map((text) => {
        try {
          return JSON.stringify(JSON.parse(text));
        } catch {
          return text;
        }
      });
      for (const name of Object.keys(publicDoc.webhooks ?? {})) {
        const example = Object.values(examples).find(
          (candidate) => (candidate.value as { event?: { type?: string } })?.event?.type === name,
        );
        expect(example, `an example payload of ${name} in the bundle`).toBeDefined();
        expect(blocks).toContain(JSON.stringify(example?.value));
      }
    });
  }, 60_000);

  it('shows the changelog, or says there is none yet', async () => {
    await visit('changelog.html', async (page) => {
      const text = await page.locator('main').innerText();
      const own = join(here, '..', 'changelog.md');
      let generated: string | undefined;
      try {
        generated = require.resolve('@platform-api/spec/api-changelog.md');
      } catch {
        generated = undefined;
      }
      const source = [own, generated].find((path): path is string => !!path && existsSync(path));
      if (source) {
        const heading = /^#\s+(.+)$/m.exec(readFileSync(source, 'utf8'))?.[1];
        expect(text).toContain(heading);
      } else {
        expect(text).toContain('No released changes yet');
      }
    });
  }, 60_000);
}
