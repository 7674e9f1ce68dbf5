// The code samples of spec/samples (shown in the reference as x-codeSamples) cannot rot: every operation
// of every bundle carries its TypeScript and curl samples, the TypeScript ones compile against the
// generated client, and every TypeScript and curl sample runs against the Prism mock of its API and
// succeeds (a TypeScript sample throws on an error answer, curl has --fail-with-body). Python (pydomo)
// samples are compiled.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockedApi, type MockServer, startMock } from '@platform-api/mock';
import { freePort } from '@platform-api/test-support';
import { HTTP_METHODS } from '@platform-api/validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
      { ...options, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
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
  });

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
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const tsc = await compileSamples();
    if (tsc.code !== 0) throw new Error(`the TypeScript samples do not compile:\n${tsc.stdout}${tsc.stderr}`);
    for (const api of apis) mocks.set(api, await startMock(api, { port: await freePort() }));
    // The environment a reader sets up; any bearer token and application password pass the mock.
    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PLATFORM_API_URL: mocks.get('platform')?.url,
      PLATFORM_CLIENT_ID: 'sample-client',
      PLATFORM_CLIENT_SECRET: 'sample-secret',
      TOKEN: 'sample-access-token',
      CHAT_BOT_TOKEN: 'sample-chat-bot-token',
      SITE_API_URL: mocks.get('site')?.url,
      WP_USER: 'editor',
      WP_APP_PASSWORD: 'abcd efgh ijkl mnop qrst uvwx',
    };
    // Files the samples read, as in a reader's working directory.
    mkdirSync(workDir, { recursive: true });
    writeFileSync(join(workDir, 'red-square.png'), redSquarePng());
  }, 60_000);

  afterAll(async () => {
    await Promise.all([...mocks.values()].map((mock) => mock.close()));
  });

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

/**
 * Python samples that cannot run against the stateless mock, with the reason (printed when skipped):
 * each is still compiled above.
 */
const pythonNotOnMock: Record<string, string> = {
  listDatasets:
    'pydomo ds_list() reads pages until an empty one, and the mock answers every page with the example list',
};

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

  it('every Python sample succeeds, except those listed with their reason', async (context) => {
    if (!python) return context.skip();
    const files = sampleFiles('platform').filter((file) => file.endsWith('.py'));
    for (const [operationId, reason] of Object.entries(pythonNotOnMock)) {
      expect(files, `${operationId} is listed but has no Python sample`).toContain(`${operationId}.py`);
      console.log(`not run against the mock: platform/${operationId}.py — ${reason}`);
    }
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PLATFORM_CLIENT_ID: 'sample-client',
      PLATFORM_CLIENT_SECRET: 'sample-secret',
      PLATFORM_API_HOST: new URL(mock.url).host,
      PLATFORM_API_HTTPS: 'false',
    };
    const runnable = files.filter((file) => !(operationIdOf(file) in pythonNotOnMock));
    const runs = await inBatches(runnable, 4, async (file) => ({
      file,
      ...(await run(python as string, [join(samplesDir, 'platform', file)], { cwd: workDir, env })),
    }));
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
