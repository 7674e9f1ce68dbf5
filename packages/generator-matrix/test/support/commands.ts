// Runs a generator, a compiler or a walk as a child process and keeps what it printed: a cell's verdict is
// its exit code, and its output is the reason shown when it fails.
import { spawn } from 'node:child_process';

export interface CommandResult {
  ok: boolean;
  /** stdout and stderr, interleaved. */
  output: string;
  /** The command line, for messages. */
  command: string;
}

interface CommandOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export function runCommand(file: string, args: string[], options: CommandOptions): Promise<CommandResult> {
  const command = [file, ...args].join(' ');
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timeoutMs = options.timeoutMs ?? 600_000;
    const timer = setTimeout(() => {
      output += `\n(killed after ${timeoutMs / 1000} s)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, output: `${output}\n${error.message}`, command });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, output, command });
    });
  });
}

/** The last lines of a command's output, for a failure message. */
export function tail(text: string, lines = 25): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}
