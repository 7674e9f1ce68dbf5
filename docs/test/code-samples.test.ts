// The code samples of spec/samples (shown in the reference as x-codeSamples) cannot rot: every operation
// of every bundle carries its TypeScript and curl samples, the TypeScript ones compile against the
// generated client, and every TypeScript, curl and Python (pydomo) sample runs against the mock of its
// API and succeeds (a TypeScript sample throws on an error answer, curl has --fail-with-body, pydomo
// raises). The mocks keep state and accept only the tokens they issued, so each sample runs as a reader
// would run it — with an access token from the mock's token endpoint, a callback token from an event the
// mock delivered to the reader's receiver — and as a tenant of its own.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInternalPlatformClient } from '@platform-api/client/internal';
import { type MockedApi, type MockServer, startMock } from '@platform-api/mock';
import { freePort, type SelfSignedCertificate, selfSignedCertificate } from '@platform-api/test-support';
import { HTTP_METHODS, isObject, type JsonObject, loadBundle, SpecValidator } from '@platform-api/validator';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The one place that builds the venv of the service's Python SDK (pydomo from PyPI, pinned).
import { pythonSdk } from '../../packages/contract-tests/test/sdk/support/python-sdk.js';

const docsDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const samplesDir = join(docsDir, '..', 'spec', 'samples');
const workDir = join(docsDir, 'test-results', 'code-samples');
const compiledDir = join(workDir, 'compiled');
const require = createRequire(import.meta.url);

type CodeSample = { lang: string; label: string; source: string };
type Operation = { operationId?: string; 'x-codeSamples'?: CodeSample[] };
type Bundle = { paths?: Record<string, Record<string, Operation>> };

/** The sample folder of each bundle: platform-public is the platform API minus its x-internal operations. */
const bundles = { platform: 'platform', 'platform-public': 'platform', site: 'site' } as const;
const apis = ['platform', 'site'] as const satisfies readonly MockedApi[];
type Api = (typeof apis)[number];

function operationsOf(bundleName: keyof typeof bundles): Operation[] {
  const bundle: Bundle = JSON.parse(
    readFileSync(require.resolve(`@platform-api/spec/${bundleName}.openapi.json`), 'utf8'),
  );
  return Object.values(bundle.paths ?? {}).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => (HTTP_METHODS as readonly string[]).includes(method))
      .map(([, operation]) => operation),
  );
}

/** Sample files of one API: `<operationId>.<ts|sh|py>`. */
function sampleFiles(api: Api): string[] {
  return readdirSync(join(samplesDir, api)).sort();
}
const operationIdOf = (file: string) => file.slice(0, -extname(file).length);

type Run = { code: number | null; stdout: string; stderr: string };
function run(
  file: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { ...options, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs `task` over `items`, `limit` at a time (two cores are shared by everyone). */
async function inBatches<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const platformSpec = new SpecValidator(loadBundle('platform'));

/** The platform's security schemes as the bundle states them: the token flow, the callback token's header. */
function platformAuth(): { tokenUrl: string; scopes: string[]; callbackHeader: string } {
  const schemes = platformSpec.document.components?.securitySchemes;
  let flow: JsonObject | undefined;
  let callbackHeader: string | undefined;
  for (const scheme of Object.values(isObject(schemes) ? schemes : {})) {
    if (!isObject(scheme)) continue;
    if (isObject(scheme.flows) && isObject(scheme.flows.clientCredentials))
      flow = scheme.flows.clientCredentials;
    if (scheme.type === 'apiKey' && scheme.in === 'header') callbackHeader = String(scheme.name);
  }
  if (!flow || !callbackHeader)
    throw new Error('the platform bundle has no client-credentials flow or callback token');
  const scopes = Object.keys(isObject(flow.scopes) ? flow.scopes : {});
  return { tokenUrl: String(flow.tokenUrl), scopes, callbackHeader };
}
const auth = platformAuth();

/**
 * Each sample is a tenant of its own — its own client id on the platform, its own WordPress user on the
 * site — so that none sees another's writes: the mocks keep state per tenant (each starts with the spec's
 * examples), and samples running side by side delete the example ids that others read.
 */
const tenantOf = (api: Api, file: string) => `sample-${api}-${file}`;
const clientSecret = 'sample-secret';

/** What a reader does before a curl sample: a token from the token endpoint, every scope of the flow. */
async function accessToken(platformUrl: string, clientId: string): Promise<string> {
  const response = await fetch(new URL(auth.tokenUrl, platformUrl), {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: auth.scopes.join(' ') }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`no token for ${clientId}: ${response.status} ${text}`);
  return String((JSON.parse(text) as { access_token?: unknown }).access_token);
}

/** A reader's bot: an HTTPS receiver of the platform's chat events, keeping each by the path it came to. */
interface EventReceiver {
  url: string;
  /** The first event that came to `path` (waits for it, a minute at most). */
  event(path: string): Promise<JsonObject>;
  close(): Promise<void>;
}

function startEventReceiver(certificate: SelfSignedCertificate): Promise<EventReceiver> {
  const events = new Map<string, JsonObject>();
  const server = createServer({ cert: certificate.cert, key: certificate.key }, (request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      let event: unknown;
      try {
        event = JSON.parse(body);
      } catch {
        // Not an event: answered, not kept (the wait for the event then fails, saying so).
      }
      if (isObject(event) && !events.has(request.url ?? '')) events.set(request.url ?? '', event);
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `https://127.0.0.1:${port}`,
        event: (path) =>
          vi.waitFor(
            () => {
              const event = events.get(path);
              if (!event) throw new Error(`no event came to ${path}`);
              return event;
            },
            { timeout: 60_000, interval: 50 },
          ),
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

/**
 * What a reader does before the callback sample: subscribe their bot to posted messages, post one in the
 * sample's channel, and take the callback token of the event that comes (the mock accepts only those).
 */
async function callbackToken(
  platformUrl: string,
  clientId: string,
  file: string,
  receiver: EventReceiver,
): Promise<string> {
  const channel = platformSpec
    .operation(operationIdOf(file))
    .parameters.find((parameter) => parameter.node.in === 'path')?.node.example;
  const platform = createInternalPlatformClient({
    baseUrl: platformUrl,
    clientId,
    clientSecret,
    scopes: ['chat'],
  });
  const listed = await platform.GET('/v1/chat/integrations');
  const integrationId = listed.data?.integrations[0]?.id;
  if (!integrationId) throw new Error(`no integration to subscribe with: ${JSON.stringify(listed.error)}`);
  const hook = `/${encodeURIComponent(clientId)}`;
  const subscribed = await platform.POST('/v1/chat/integrations/{integrationId}/subscriptions', {
    params: { path: { integrationId } },
    body: { eventType: 'MESSAGE_POSTED', url: `${receiver.url}${hook}` },
  });
  if (subscribed.error) throw new Error(`subscribing failed: ${JSON.stringify(subscribed.error)}`);
  const posted = await platform.POST('/v1/chat/channels/{channelId}/messages', {
    params: { path: { channelId: String(channel) } },
    body: { text: 'A message, for the event that carries a callback token.' },
  });
  if (posted.error) throw new Error(`posting failed: ${JSON.stringify(posted.error)}`);
  const { callback } = await receiver.event(hook);
  const headers = isObject(callback) && isObject(callback.headers) ? callback.headers : {};
  return String(headers[auth.callbackHeader]);
}

describe('code samples are complete', () => {
  for (const [bundleName, api] of Object.entries(bundles) as [keyof typeof bundles, Api][]) {
    it(`every operation of the ${bundleName} bundle shows its TypeScript and curl samples, as in spec/samples/${api}`, () => {
      const operations = operationsOf(bundleName);
      expect(operations.length).toBeGreaterThan(0);
      const problems: string[] = [];
      for (const operation of operations) {
        const id = operation.operationId ?? '(no operationId)';
        const shown = new Map(
          (operation['x-codeSamples'] ?? []).map((sample) => [sample.lang, sample.source]),
        );
        for (const [lang, extension] of [
          ['TypeScript', '.ts'],
          ['Shell', '.sh'],
          ['Python', '.py'],
        ] as const) {
          let file: string | undefined;
          try {
            file = readFileSync(join(samplesDir, api, `${id}${extension}`), 'utf8').trimEnd();
          } catch {
            file = undefined;
          }
          if (file === undefined && extension !== '.py') problems.push(`${id}: no ${api}/${id}${extension}`);
          if (shown.get(lang) !== file)
            problems.push(`${id}: the bundle's ${lang} sample is not ${api}/${id}${extension}`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  for (const api of apis) {
    it(`every sample file in spec/samples/${api} names an operation of the ${api} bundle`, () => {
      const known = new Set(operationsOf(api).map((operation) => operation.operationId));
      const orphans = sampleFiles(api).filter(
        (file) => !['.ts', '.sh', '.py'].includes(extname(file)) || !known.has(operationIdOf(file)),
      );
      expect(orphans).toEqual([]);
    });
  }
});

/** tsc over the TypeScript samples, once: its type errors, and the JavaScript the run tests execute. */
let compilation: Promise<Run> | undefined;
function compileSamples(): Promise<Run> {
  if (!compilation) {
    rmSync(compiledDir, { recursive: true, force: true });
    // Emitted under docs/, so that the compiled imports of @platform-api/client resolve at run time.
    compilation = run(
      join(docsDir, 'node_modules', '.bin', 'tsc'),
      ['-p', 'samples.tsconfig.json', '--noEmit', 'false', '--outDir', compiledDir],
      { cwd: docsDir },
    );
  }
  return compilation;
}

describe('code samples compile', () => {
  it('the TypeScript samples type-check against @platform-api/client (tsc, samples.tsconfig.json)', async () => {
    const tsc = await compileSamples();
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  }, 240_000);

  it('the Python samples compile (python3)', async () => {
    const files = apis.flatMap((api) =>
      sampleFiles(api)
        .filter((file) => file.endsWith('.py'))
        .map((file) => join(samplesDir, api, file)),
    );
    expect(files.length).toBeGreaterThan(0);
    // compile() only: py_compile would leave __pycache__ in spec/samples.
    const script =
      'import sys\nfor f in sys.argv[1:]:\n    compile(open(f, encoding="utf-8").read(), f, "exec")';
    const python = await run('python3', ['-c', script, ...files]);
    expect(python.stderr).toBe('');
    expect(python.code).toBe(0);
  });
});

describe('code samples run against the mocks', () => {
  const mocks = new Map<Api, MockServer>();
  let certificate: SelfSignedCertificate | undefined;
  let receiver: EventReceiver;

  beforeAll(async () => {
    const tsc = await compileSamples();
    if (tsc.code !== 0) throw new Error(`the TypeScript samples do not compile:\n${tsc.stdout}${tsc.stderr}`);
    certificate = selfSignedCertificate();
    receiver = await startEventReceiver(certificate);
    // The mock delivers events to the receiver, whose self-signed certificate it is told to trust.
    mocks.set(
      'platform',
      await startMock('platform', { port: await freePort(), webhookCa: certificate.cert }),
    );
    mocks.set('site', await startMock('site', { port: await freePort() }));
    // Files the samples read, as in a reader's working directory.
    mkdirSync(workDir, { recursive: true });
    writeFileSync(join(workDir, 'red-square.png'), redSquarePng());
  }, 60_000);

  afterAll(async () => {
    await Promise.all([...mocks.values()].map((mock) => mock.close()));
    await receiver?.close();
    certificate?.remove();
  });

  /** The environment a reader sets up for one sample, as its own tenant, with what the sample reads. */
  async function envOf(api: Api, file: string): Promise<NodeJS.ProcessEnv> {
    const platformUrl = mocks.get('platform')?.url ?? '';
    const tenant = tenantOf(api, file);
    const source = readFileSync(join(samplesDir, api, file), 'utf8');
    return {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PLATFORM_API_URL: platformUrl,
      PLATFORM_CLIENT_ID: tenant,
      PLATFORM_CLIENT_SECRET: clientSecret,
      // The mock accepts only tokens it issued: the access token and the callback token are the tenant's.
      ...(/\$TOKEN\b/.test(source) ? { TOKEN: await accessToken(platformUrl, tenant) } : {}),
      ...(source.includes('CHAT_BOT_TOKEN')
        ? { CHAT_BOT_TOKEN: await callbackToken(platformUrl, tenant, file, receiver) }
        : {}),
      SITE_API_URL: mocks.get('site')?.url,
      WP_USER: tenant,
      WP_APP_PASSWORD: 'abcd efgh ijkl mnop qrst uvwx',
    };
  }

  for (const api of apis) {
    for (const [kind, extension] of [
      ['TypeScript', '.ts'],
      ['curl', '.sh'],
    ] as const) {
      it(`every ${kind} sample of the ${api} API succeeds against the ${api} mock`, async () => {
        const files = sampleFiles(api).filter((file) => file.endsWith(extension));
        expect(files.length).toBe(operationsOf(api).length);
        if (extension === '.sh') {
          // Without it curl exits 0 on a 4xx or 5xx, and a broken sample would pass.
          const lenient = files.filter(
            (file) => !readFileSync(join(samplesDir, api, file), 'utf8').includes('--fail-with-body'),
          );
          expect(lenient).toEqual([]);
        }
        const runs = await inBatches(files, 4, async (file) => {
          let env: NodeJS.ProcessEnv;
          try {
            env = await envOf(api, file);
          } catch (error) {
            // Counted as this sample's failure, with why; the others still run.
            return { file, code: null, stdout: '', stderr: `setting up: ${(error as Error).message}` };
          }
          const result =
            extension === '.ts'
              ? await run(process.execPath, [join(compiledDir, api, file.replace(/\.ts$/, '.js'))], {
                  cwd: workDir,
                  env,
                })
              : await run('bash', ['-e', join(samplesDir, api, file)], { cwd: workDir, env });
          return { file, ...result };
        });
        const failures = runs
          // A TypeScript sample prints what it got; curl may print nothing for a 204 (its exit code tells).
          .filter((result) => result.code !== 0 || (extension === '.ts' && result.stdout.trim() === ''))
          .map((result) =>
            `${api}/${result.file} (exit ${result.code}):\n${result.stderr}${result.stdout}`.trim(),
          );
        expect(failures.join('\n\n')).toBe('');
      }, 300_000);
    }
  }
});

describe('Python (pydomo) samples run against the platform mock', () => {
  let mock: MockServer;
  let python: string | undefined;

  beforeAll(async () => {
    const sdk = await pythonSdk();
    if (!sdk.available) {
      if (process.env.CI === 'true') throw new Error(`pydomo is not available under CI: ${sdk.reason}`);
      console.warn(`\n*** SKIPPED: running the pydomo samples — ${sdk.reason} ***\n`);
      return;
    }
    python = sdk.python;
    mkdirSync(workDir, { recursive: true });
    mock = await startMock('platform', { port: await freePort() });
  }, 600_000);

  afterAll(async () => {
    await mock?.close();
  });

  it('every Python sample succeeds', async (context) => {
    if (!python) return context.skip();
    const files = sampleFiles('platform').filter((file) => file.endsWith('.py'));
    expect(files.length).toBeGreaterThan(0);
    const runs = await inBatches(files, 4, async (file) => {
      // pydomo asks for its own token with the sample's client, a tenant of its own.
      const env = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PLATFORM_CLIENT_ID: tenantOf('platform', file),
        PLATFORM_CLIENT_SECRET: clientSecret,
        PLATFORM_API_HOST: new URL(mock.url).host,
        PLATFORM_API_HTTPS: 'false',
      };
      return {
        file,
        ...(await run(python as string, [join(samplesDir, 'platform', file)], { cwd: workDir, env })),
      };
    });
    const failures = runs
      .filter((result) => result.code !== 0)
      .map((result) =>
        `platform/${result.file} (exit ${result.code}):\n${result.stderr}${result.stdout}`.trim(),
      );
    expect(failures.join('\n\n')).toBe('');
  }, 300_000);
});

/** A valid 1×1 red PNG (what `red-square.png` stands for in the createMedia samples). */
function redSquarePng(): Buffer {
  return Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
    'base64',
  );
}
