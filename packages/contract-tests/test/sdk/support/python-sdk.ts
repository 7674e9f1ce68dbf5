// The Python environment for the service's SDK: a venv in <repo>/.state/python-sdk with
// test/sdk/requirements.txt installed from PyPI. Built on first use (≈ 20 s), rebuilt when the
// requirements change, reused otherwise. When Python, venv or PyPI is missing, says why instead.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../../../..');
export const requirementsFile = join(here, '..', 'requirements.txt');
export const venvDir = join(repoRoot, '.state/python-sdk');
/** A copy of the requirements the venv was built from: the venv is reused only while it matches. */
const stampFile = join(venvDir, 'requirements.txt');
const venvPython = (dir: string) => join(dir, 'bin', 'python');

export type PythonSdk = { available: true; python: string } | { available: false; reason: string };

const run = promisify(execFile);

function tail(text: string, lines = 15): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

async function attempt(
  what: string,
  file: string,
  args: string[],
  timeout: number,
): Promise<string | undefined> {
  try {
    await run(file, args, { timeout, maxBuffer: 16 * 1024 * 1024 });
    return undefined;
  } catch (error) {
    const { stderr, stdout, message } = error as { stderr?: string; stdout?: string; message: string };
    return `${what} failed: ${tail(stderr || stdout || message, 3)}`;
  }
}

let cached: Promise<PythonSdk> | undefined;

export function pythonSdk(): Promise<PythonSdk> {
  cached ??= prepare();
  return cached;
}

async function prepare(): Promise<PythonSdk> {
  const requirements = readFileSync(requirementsFile, 'utf8');
  if (
    existsSync(venvPython(venvDir)) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8') === requirements
  ) {
    const broken = await attempt('import pydomo', venvPython(venvDir), ['-c', 'import pydomo'], 60_000);
    if (!broken) return { available: true, python: venvPython(venvDir) };
  }
  const noPython = await attempt('python3 --version', 'python3', ['--version'], 30_000);
  if (noPython) return { available: false, reason: `no usable python3 on PATH (${noPython})` };

  // Built beside the final place and renamed into it, so an interrupted build is never reused.
  const building = `${venvDir}.build-${process.pid}`;
  mkdirSync(dirname(venvDir), { recursive: true });
  rmSync(building, { recursive: true, force: true });
  try {
    const noVenv = await attempt('python3 -m venv', 'python3', ['-m', 'venv', building], 120_000);
    if (noVenv) return { available: false, reason: `cannot create a venv (${noVenv})` };
    const noInstall = await attempt(
      `pip install -r ${requirementsFile}`,
      venvPython(building),
      ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '-q', '-r', requirementsFile],
      600_000,
    );
    if (noInstall) return { available: false, reason: `cannot install pydomo from PyPI (${noInstall})` };
    writeFileSync(join(building, 'requirements.txt'), requirements);
    rmSync(venvDir, { recursive: true, force: true });
    renameSync(building, venvDir);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return { available: true, python: venvPython(venvDir) };
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

export interface WalkStep {
  name: string;
  ok: boolean;
  value?: unknown;
  error?: string;
  traceback?: string;
  exchanges: Exchange[];
}

export interface WalkRun {
  pydomo: string;
  steps: WalkStep[];
}

export interface WalkOptions {
  target: 'server' | 'mock';
  /** `host:port`, as pydomo's `api_host` (it adds the scheme itself). */
  host: string;
  clientId: string;
  clientSecret: string;
  fixtures: Record<string, unknown>;
}

/** Runs test/sdk/pydomo_walk.py once and returns what it reports. */
export function runWalk(python: string, options: WalkOptions): Promise<WalkRun> {
  const args = [
    join(here, '..', 'pydomo_walk.py'),
    '--target',
    options.target,
    '--host',
    options.host,
    '--client-id',
    options.clientId,
    '--client-secret',
    options.clientSecret,
    '--fixtures',
    JSON.stringify(options.fixtures),
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
export function describeStep(step: WalkStep | undefined): string {
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
