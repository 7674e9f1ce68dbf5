// Every shell block the docs show (```sh in docs/guides/*.md and the landing page's quick start) runs as
// written against a real reference server: the blocks of one page run in order in one bash, after the
// quick start (which gives them $TOKEN), with only the server's address changed from localhost:3000 to
// the test's port. curl fails on any HTTP error (a .curlrc with --fail-with-body), so a command whose
// call is refused fails the test. A block marked `<!-- docs-test: not run (reason) -->` is not run; each
// of its commands must still name a script or file that exists.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type StartedProcess, startProcess } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const cli = join(root, 'apps', 'server', 'dist', 'cli.js');

type Block = { code: string; skip?: string };
/** The ```sh blocks of a Markdown file, with the reason when a `docs-test: not run` comment precedes one. */
function shellBlocks(path: string): Block[] {
  const markdown = readFileSync(path, 'utf8');
  return [
    ...markdown.matchAll(
      /(?:<!--\s*docs-test:\s*not run \(([^)]*)\)\s*-->\n)?[ ]*```sh\n([\s\S]*?)\n[ ]*```/g,
    ),
  ].map(([, skip, code]) => ({ code: (code ?? '').replace(/^ {3}/gm, ''), ...(skip ? { skip } : {}) }));
}

const quickStart = join(here, '..', 'site', 'quick-start.md');
const guidesDir = join(here, '..', 'guides');
const documents = [
  quickStart,
  ...readdirSync(guidesDir)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(guidesDir, name)),
];
const rootScripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<
  string,
  string
>;

describe('the commands the docs show', () => {
  let temp: string;
  let baseUrl: string;
  let server: StartedProcess | undefined;

  beforeAll(async () => {
    expect(
      existsSync(cli),
      'build the server first: pnpm exec turbo run build --filter=@platform-api/server',
    ).toBe(true);
    temp = mkdtempSync(join(tmpdir(), 'docs-commands-'));
    writeFileSync(join(temp, '.curlrc'), '--fail-with-body\n--show-error\n');
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    server = await startProcess(
      'the reference server',
      process.execPath,
      [cli, 'serve', '--port', String(port), '--delivery', 'false'],
      {
        cwd: root,
        env: { ...process.env, PLATFORM_DATA_DIR: join(temp, 'data'), LOG_LEVEL: 'warn' },
        ready: `${baseUrl}/readyz`,
      },
    );
  });

  afterAll(async () => {
    await server?.stop();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  /** Runs shell code from the repository root against the test server; returns its stdout. */
  function run(code: string): string {
    const script = `set -euo pipefail\n${code.replaceAll('http://localhost:3000', baseUrl)}\n`;
    return execFileSync('bash', ['-c', script], {
      cwd: root,
      env: { ...process.env, CURL_HOME: temp, PLATFORM_DATA_DIR: join(temp, 'data') },
      encoding: 'utf8',
      timeout: 60_000,
    });
  }

  it('finds shell blocks to run, and some it only checks', () => {
    const blocks = documents.flatMap(shellBlocks);
    expect(blocks.filter((block) => !block.skip).length).toBeGreaterThanOrEqual(6);
    expect(blocks.filter((block) => block.skip).length).toBeGreaterThan(0);
  });

  it('the check fails a command the server refuses', () => {
    expect(() => run('curl -s http://localhost:3000/v1/users')).toThrow();
  });

  it.each(documents.map((path) => [path.slice(root.length + 1), path]))(
    '%s: every shell block runs as written',
    (_, path) => {
      const blocks = shellBlocks(path);
      const prelude = path === quickStart ? [] : shellBlocks(quickStart).map((block) => block.code);
      const runnable = blocks.filter((block) => !block.skip).map((block) => block.code);
      if (runnable.length > 0) {
        const output = run([...prelude, ...runnable].join('\n'));
        expect(output.length).toBeGreaterThan(0);
      }
      for (const { code } of blocks.filter((block) => block.skip)) {
        for (const line of code.split('\n').filter((text) => /^\S/.test(text))) {
          const npmScript = /^npm (?:run )?([\w:-]+)/.exec(line)?.[1];
          if (npmScript)
            expect(Object.keys(rootScripts).concat(['start', 'test']), line).toContain(npmScript);
          const file = /^(?:node|bash)(?: --?[\w-]+(?:=\S+)?)* ([\w./-]+\.(?:m?js|sh))/.exec(line)?.[1];
          if (file) expect(existsSync(join(root, file)), line).toBe(true);
        }
      }
    },
    120_000,
  );
});
