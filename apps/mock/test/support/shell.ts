// Running a README's shell lines as a reader runs them: bash, stopping at the first failing line.
import { spawn } from 'node:child_process';

/** The lines' exit code and what they wrote (stdout and stderr, interleaved). */
export function runShell(commands: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const shell = spawn('bash', ['-e', '-c', commands], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    shell.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    shell.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    shell.once('close', (code) => resolve({ code, output }));
  });
}
