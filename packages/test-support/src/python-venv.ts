// A Python virtual environment built from a pinned requirements file, for the suites whose judges are
// Python programs (the service's SDK, generated Python clients). Built on first use in a folder of the
// repository's .state/, rebuilt when the requirements change, reused otherwise; an interrupted build is
// never reused (it is built beside its place and renamed into it). Test processes that need it at once
// build it once: the build holds a lock, and the others wait and use its result. When Python, venv or the
// package index is missing, it says why instead.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

export type PythonVenv = { available: true; python: string } | { available: false; reason: string };

export interface PythonVenvOptions {
  /** Where the venv lives, e.g. `<repo>/.state/python-sdk`. */
  dir: string;
  /** The pinned requirements (`pip install -r`). */
  requirementsFile: string;
  /** A Python statement that must run in a usable venv, e.g. `import pydomo`. */
  check: string;
}

const run = promisify(execFile);
const venvPython = (dir: string) => join(dir, 'bin', 'python');

/** The command's failure in a line or three, or undefined when it succeeded. */
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
    const text = (stderr || stdout || message).trim().split('\n').slice(-3).join('\n');
    return `${what} failed: ${text}`;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the lock's holder is gone: its pid no longer runs, or it never wrote one (10 minutes on). */
function abandoned(lock: string): boolean {
  try {
    const pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    process.kill(pid, 0);
    return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPERM') return false;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      try {
        return Date.now() - statSync(lock).mtimeMs > 600_000;
      } catch {
        return false; // released meanwhile
      }
    }
    return true; // ESRCH: the holder died
  }
}

/** Runs `work` holding `<dir>.lock` (a directory: mkdir is atomic), waiting for another holder first. */
async function withLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const lock = `${dir}.lock`;
  mkdirSync(dirname(dir), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (abandoned(lock)) rmSync(lock, { recursive: true, force: true });
      else await sleep(500);
    }
  }
  try {
    writeFileSync(join(lock, 'pid'), String(process.pid));
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The venv's python when the venv was built from these requirements and passes the check. */
async function usable(dir: string, requirements: string, check: string): Promise<string | undefined> {
  // A copy of the requirements the venv was built from: it is reused only while they match.
  const stampFile = join(dir, 'requirements.txt');
  if (!existsSync(venvPython(dir)) || !existsSync(stampFile)) return undefined;
  if (readFileSync(stampFile, 'utf8') !== requirements) return undefined;
  return (await attempt(check, venvPython(dir), ['-c', check], 60_000)) ? undefined : venvPython(dir);
}

export async function pythonVenv({ dir, requirementsFile, check }: PythonVenvOptions): Promise<PythonVenv> {
  const requirements = readFileSync(requirementsFile, 'utf8');
  const ready = await usable(dir, requirements, check);
  if (ready) return { available: true, python: ready };
  return withLock(dir, async () => {
    // Another process may have built it while this one waited.
    const built = await usable(dir, requirements, check);
    return built ? { available: true, python: built } : build(dir, requirementsFile, requirements);
  });
}

async function build(dir: string, requirementsFile: string, requirements: string): Promise<PythonVenv> {
  const noPython = await attempt('python3 --version', 'python3', ['--version'], 30_000);
  if (noPython) return { available: false, reason: `no usable python3 on PATH (${noPython})` };

  const building = `${dir}.build-${process.pid}`;
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
    if (noInstall) return { available: false, reason: `cannot install from PyPI (${noInstall})` };
    writeFileSync(join(building, 'requirements.txt'), requirements);
    rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return { available: true, python: venvPython(dir) };
}
