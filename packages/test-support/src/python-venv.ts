// A Python virtual environment built from a pinned requirements file, for the suites whose judges are
// Python programs (the service's SDK, generated Python clients). Built on first use in a folder of the
// repository's .state/, rebuilt when the requirements change, reused otherwise; an interrupted build is
// never reused (it is built beside its place and renamed into it). When Python, venv or the package index
// is missing, it says why instead.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

export async function pythonVenv({ dir, requirementsFile, check }: PythonVenvOptions): Promise<PythonVenv> {
  const requirements = readFileSync(requirementsFile, 'utf8');
  // A copy of the requirements the venv was built from: it is reused only while they match.
  const stampFile = join(dir, 'requirements.txt');
  if (
    existsSync(venvPython(dir)) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8') === requirements
  ) {
    const broken = await attempt(check, venvPython(dir), ['-c', check], 60_000);
    if (!broken) return { available: true, python: venvPython(dir) };
  }
  const noPython = await attempt('python3 --version', 'python3', ['--version'], 30_000);
  if (noPython) return { available: false, reason: `no usable python3 on PATH (${noPython})` };

  const building = `${dir}.build-${process.pid}`;
  mkdirSync(dirname(dir), { recursive: true });
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
