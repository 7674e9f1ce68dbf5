// A service a test starts as a child process (the reference server, Verdaccio), waited for as long
// as a loaded machine may need, and failing — never skipping — with the service's last output when it does
// not come up.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * How long a test waits for a service to start (Prism, the reference server, Chromium, Verdaccio):
 * PLATFORM_START_TIMEOUT_MS, default 3 minutes. A start takes 1–2 s on a quiet machine; the default leaves
 * room for a 2-core machine running every suite at once beside other work.
 */
export function startTimeoutMs(): number {
  const configured = Number(process.env.PLATFORM_START_TIMEOUT_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : 180_000;
}

export interface StartProcessOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Resolves true once the service is ready: a URL that must answer 2xx, or a check of its own. */
  ready: string | (() => Promise<boolean>);
  /** Every line the process writes (stdout and stderr); by default they go to this process's stderr. */
  onLine?: (line: string) => void;
  /** Default: startTimeoutMs(). */
  timeoutMs?: number;
}

export interface StartedProcess {
  child: ChildProcess;
  /** The process's last lines of output, for an error message. */
  lastOutput(): string;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it has exited. */
  stop(): Promise<void>;
}

const KEPT_LINES = 40;

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

export async function startProcess(
  name: string,
  command: string,
  args: string[],
  options: StartProcessOptions,
): Promise<StartedProcess> {
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const onLine = options.onLine ?? ((line: string) => process.stderr.write(`${line}\n`));
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (lines.length > KEPT_LINES) lines.shift();
      onLine(line);
    });
  }
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  // 'close' comes after 'exit', once its output has been read to the end.
  let closed = false;
  child.once('close', () => {
    closed = true;
  });
  const started: StartedProcess = {
    child,
    lastOutput: () => (lines.length > 0 ? lines.join('\n') : '(no output)'),
    stop: () =>
      new Promise<void>((resolve) => {
        if (!isRunning(child) || spawnError) {
          resolve();
          return;
        }
        const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };

  const { ready } = options;
  const isReady = typeof ready === 'string' ? () => answers(ready) : ready;
  const timeoutMs = options.timeoutMs ?? startTimeoutMs();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (spawnError) throw new Error(`${name} could not be started (${command}): ${spawnError.message}`);
    if (closed) {
      throw new Error(
        `${name} exited with ${child.exitCode ?? child.signalCode} before it was ready; its last output:\n${started.lastOutput()}`,
      );
    }
    if (await isReady().catch(() => false)) return started;
    if (Date.now() > deadline) {
      await started.stop();
      throw new Error(
        `${name} did not start within ${timeoutMs} ms (PLATFORM_START_TIMEOUT_MS waits longer); its last output:\n${started.lastOutput()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
