// The README's commands for the mocks of this repository, as written but for the ports: the two mocks
// with memory held to the default profile (the platform with a second tenant), and the same mocks started
// stateless held to `--profile stateless`. Nothing may fail, with any seed (each run takes a fresh one).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockServer, startMock } from '@platform-api/mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/index.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(packageDir, 'bin', 'contract-tests.mjs');

/** The `npx -- contract-tests …` lines of the README's "The mocks of this repository" section. */
function readmeCommands(): string[] {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  const start = readme.indexOf('\n### The mocks of this repository\n');
  const section = readme.slice(start, readme.indexOf('\n### ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((block) => (block[1] ?? '').split('\n'))
    .filter((line) => line.startsWith('npx -- contract-tests '));
}

/** Runs the CLI without blocking this process, which serves the mocks the CLI calls. */
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

const stateless = (command: string) => command.includes('--profile stateless');

describe('the README commands for the mocks', () => {
  const commands = readmeCommands();
  /** The mocks by the README's port, with memory and stateless. */
  const mocks = new Map<string, MockServer>();
  const key = (port: string, isStateless: boolean) => `${port}${isStateless ? ' stateless' : ''}`;

  beforeAll(async () => {
    for (const [port, api] of [
      ['4010', 'platform'],
      ['4011', 'site'],
    ] as const) {
      for (const isStateless of [false, true])
        mocks.set(
          key(port, isStateless),
          await startMock(api, { port: await freePort(), stateless: isStateless }),
        );
    }
  }, 300_000);
  afterAll(async () => {
    for (const mock of mocks.values()) await mock.close();
  });

  it('name each mock with its default profile, the platform with a second tenant, and each stateless one', () => {
    expect(commands.filter((command) => !stateless(command))).toEqual([
      expect.stringMatching(
        /^npx -- contract-tests platform .*--other-client-id \S+ --other-client-secret \S+/,
      ),
      expect.stringMatching(/^npx -- contract-tests site /),
    ]);
    expect(commands.filter(stateless)).toHaveLength(2);
  });

  for (const command of commands) {
    const port = /localhost:(\d+)/.exec(command)?.[1] ?? '';
    it(`passes: ${command}`, async () => {
      const mock = mocks.get(key(port, stateless(command)));
      expect(mock, `a mock for port ${port}`).toBeDefined();
      const args = command
        .replace('npx -- contract-tests ', '')
        .replace(`http://localhost:${port}`, mock?.url ?? '')
        .split(' ');
      const result = await runCli(args);
      expect(result.status, result.stdout.slice(-3000)).toBe(0);
      const phases = stateless(command)
        ? ['examples', 'coverage', 'transport']
        : ['examples', 'coverage', 'fuzz', 'stateful', 'transport'];
      expect(result.stdout).toMatch(
        new RegExp(`^phases: ${phases.map((phase) => `${phase} [1-9]\\d* requests`).join('.*')}`, 'm'),
      );
      expect(result.stdout).toMatch(/checks × operations: [1-9]\d* passed, 0 failed/);
      if (command.includes('--other-client-id'))
        expect(result.stdout).not.toMatch(/skipped tenant_isolation/);
      if (command.startsWith('npx -- contract-tests site') && !stateless(command))
        expect(result.stdout).toMatch(
          /site scenarios against the site mock \(with memory\): [1-9]\d* run \([1-9]\d* passed, 0 failed\)/,
        );
    }, 600_000);
  }
});
