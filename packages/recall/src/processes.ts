// A tool run as a child process: its output to a log file, its exit code, and a time limit after which it
// is killed (a mutant that makes the server hang must not hang the run).
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export interface Finished {
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** stdout and stderr, as written (also in the log file). */
  output: string;
}

/** The tools running now, killed when the run is interrupted. */
const running = new Set<ChildProcess>();

export function killRunning(): void {
  for (const child of running) child.kill('SIGKILL');
}

export function runLogged(
  command: string,
  args: string[],
  options: { logFile: string; timeoutMs: number; env?: NodeJS.ProcessEnv; cwd?: string },
): Promise<Finished> {
  const started = Date.now();
  const log = createWriteStream(options.logFile);
  // The tokens and secrets of throwaway servers, but still not written to a file.
  const shown = [command, ...args].join(' ').replace(/(Bearer |secret )\S+/g, '$1[redacted]');
  log.write(`$ ${shown}\n`);
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const chunks: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      chunks.push(chunk);
      log.write(chunk);
    });
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs);
  return new Promise((resolve) => {
    let done = false;
    // 'error' (the command cannot be run) may come with or without a 'close' after it.
    const finish = (exitCode: number | null) => {
      if (done) return;
      done = true;
      running.delete(child);
      clearTimeout(timer);
      const durationMs = Date.now() - started;
      log.end(`\n[exit ${exitCode}${timedOut ? ', killed after the time limit' : ''}, ${durationMs} ms]\n`);
      resolve({ exitCode, timedOut, durationMs, output: chunks.join('') });
    };
    child.once('error', (error) => {
      chunks.push(String(error));
      finish(null);
    });
    child.once('close', (code) => finish(code));
  });
}
