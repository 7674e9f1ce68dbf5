// The Python environment for the service's SDK: a venv in <repo>/.state/python-sdk with
// test/sdk/requirements.txt installed from PyPI (test-support's pythonVenv: built on first use, ≈ 20 s,
// rebuilt when the requirements change). When Python, venv or PyPI is missing, says why instead.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type PythonVenv, pythonVenv, type WalkStep } from '@platform-api/test-support';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../../../..');
const requirementsFile = join(here, '..', 'requirements.txt');
const venvDir = join(repoRoot, '.state/python-sdk');

function tail(text: string, lines = 15): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

let cached: Promise<PythonVenv> | undefined;

export function pythonSdk(): Promise<PythonVenv> {
  cached ??= pythonVenv({ dir: venvDir, requirementsFile, check: 'import pydomo' });
  return cached;
}

export interface Exchange {
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody: string | null;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string | null;
}

/** A step of pydomo's walk: the shared shape, with the HTTP exchanges the call made. */
export interface PydomoWalkStep extends WalkStep {
  exchanges: Exchange[];
}

export interface WalkRun {
  pydomo: string;
  steps: PydomoWalkStep[];
}

export interface WalkOptions {
  /** `host:port`, as pydomo's `api_host` (it adds the scheme itself). */
  host: string;
  clientId: string;
  clientSecret: string;
  fixtures: Record<string, unknown>;
}

/** Runs test/sdk/pydomo_walk.py once and returns what it reports. */
export function runWalk(python: string, options: WalkOptions): Promise<WalkRun> {
  // `--name=value`: a client secret is random base64url and may start with `-`, which argparse would
  // take for a flag after `--client-secret`.
  const args = [
    join(here, '..', 'pydomo_walk.py'),
    `--host=${options.host}`,
    `--client-id=${options.clientId}`,
    `--client-secret=${options.clientSecret}`,
    `--fixtures=${JSON.stringify(options.fixtures)}`,
  ];
  return new Promise((resolveRun, reject) => {
    const child = spawn(python, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('PYDOMO_WALK '));
      if (!line) {
        reject(
          new Error(
            `pydomo_walk.py ended (${signal ?? code}) without a report:\n${tail(stderr + stdout, 40)}`,
          ),
        );
        return;
      }
      resolveRun(JSON.parse(line.slice('PYDOMO_WALK '.length)) as WalkRun);
    });
  });
}

/** A step's outcome for assertion messages: the error and the exact requests and answers. */
export function describeStep(step: PydomoWalkStep | undefined): string {
  if (!step) return 'the walk did not report this step';
  const exchanges = step.exchanges.map(
    (e) =>
      `  ${e.method} ${e.url} ${JSON.stringify(e.requestHeaders)}${e.requestBody ? `\n    body: ${e.requestBody}` : ''}\n` +
      `  → ${e.status} ${e.responseHeaders['Content-Type'] ?? e.responseHeaders['content-type'] ?? ''}\n    ${e.responseBody ?? ''}`,
  );
  return [
    `step ${step.name}: ${step.ok ? 'ok' : step.error}`,
    ...(step.traceback ? [step.traceback] : []),
    ...exchanges,
  ].join('\n');
}
