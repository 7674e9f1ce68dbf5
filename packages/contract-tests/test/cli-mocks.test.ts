// The README's commands for a stateless mock, as written but for the ports, against both mocks of this
// repository: every phase of the profile runs and nothing fails, with any seed (each run takes a fresh one).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockServer, startMock } from '@platform-api/mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/index.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(packageDir, 'bin', 'contract-tests.mjs');

/** The `npx -- contract-tests …` lines of the README's "A stateless mock" section. */
function readmeCommands(): string[] {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n### A stateless mock\n'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').filter((line) => line.startsWith('npx -- contract-tests '));
}

/** Runs the CLI without blocking this process, which serves nothing the CLI needs but must stay responsive. */
function runCli(args: string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout }));
  });
}

describe('the README commands for a stateless mock', () => {
  const mocks: Record<string, MockServer> = {};

  beforeAll(async () => {
    mocks['4010'] = await startMock('platform', { port: await freePort() });
    mocks['4011'] = await startMock('site', { port: await freePort() });
  });
  afterAll(async () => {
    for (const mock of Object.values(mocks)) await mock.close();
  });

  const commands = readmeCommands();
  it('names one command per mock', () => {
    expect(commands).toHaveLength(2);
  });

  for (const command of commands) {
    const port = /localhost:(\d+)/.exec(command)?.[1] ?? '';
    it(`passes: ${command}`, async () => {
      const mock = mocks[port];
      expect(mock, `a mock for port ${port}`).toBeDefined();
      const args = command
        .replace('npx -- contract-tests ', '')
        .replace(`http://localhost:${port}`, mock?.url ?? '')
        .split(' ');
      const result = await runCli(args);
      expect(result.status, result.stdout.slice(-3000)).toBe(0);
      expect(result.stdout).toMatch(
        /^phases: examples \d+ requests .*coverage \d+ requests .*transport \d+ requests/m,
      );
      expect(result.stdout).toMatch(/checks × operations: [1-9]\d* passed, 0 failed/);
    }, 300_000);
  }
});
