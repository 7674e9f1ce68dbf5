import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The APIs this package mocks, each served from its bundle in @platform-api/spec. */
export const mockedApis = {
  platform: { bundle: '@platform-api/spec/platform.openapi.json', defaultPort: 4010 },
  site: { bundle: '@platform-api/spec/site.openapi.json', defaultPort: 4011 },
} as const;

export type MockedApi = keyof typeof mockedApis;

export interface MockServer {
  api: MockedApi;
  url: string;
  close(): Promise<void>;
}

export interface StartMockOptions {
  port?: number;
  host?: string;
  /** Forwarded Prism output; defaults to dropping it (tests) — the CLI passes process.stderr. */
  log?: NodeJS.WritableStream;
  readyTimeoutMs?: number;
}

const require = createRequire(import.meta.url);

function prismBinary(): string {
  // The package's own bin, resolved through node's resolution so it works from any cwd.
  const pkg = require.resolve('@stoplight/prism-cli/package.json');
  return join(dirname(pkg), 'dist', 'index.js');
}

/**
 * Starts Prism on one bundled spec. `--errors` makes Prism answer schema-invalid requests with the
 * spec's own 4xx responses (or 422) instead of only logging the violation.
 */
export async function startMock(api: MockedApi, options: StartMockOptions = {}): Promise<MockServer> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? mockedApis[api].defaultPort;
  const bundle = require.resolve(mockedApis[api].bundle);
  const child = spawn(
    process.execPath,
    [prismBinary(), 'mock', bundle, '--host', host, '--port', String(port), '--errors', '--cors', 'false'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const url = `http://${host}:${port}`;
  await waitUntilListening(child, url, options);
  return {
    api,
    url,
    close: () => stopChild(child),
  };
}

function waitUntilListening(child: ChildProcess, url: string, options: StartMockOptions): Promise<void> {
  const timeoutMs = options.readyTimeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Prism did not start on ${url} within ${timeoutMs} ms:\n${output.slice(-2000)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      options.log?.write(text);
      if (text.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited with code ${code} before listening on ${url}:\n${output.slice(-2000)}`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  });
}
