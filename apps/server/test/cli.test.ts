import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { optionsHelp } from '@platform-api/cli-options';
import { freePort, startTimeoutMs } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SERVER_OPTIONS } from '../src/config.js';

/* The real binary (dist/cli.js) in child processes: first-start credentials, clients commands, SIGTERM. */

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');

function run(args: string[], env: Record<string, string> = {}) {
  return execFileSync(process.execPath, [cli, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    stdio: 'pipe',
  });
}

/** Everything the child writes, as it arrives. */
function collectOutput(child: ChildProcess): () => string {
  let seen = '';
  const onData = (chunk: Buffer) => {
    seen += chunk.toString();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return () => seen;
}

/** Waits until the child's output matches `pattern`; resolves with the output so far. */
function outputMatching(output: () => string, pattern: RegExp): Promise<string> {
  return vi.waitFor(
    () => {
      expect(output()).toMatch(pattern);
      return output();
    },
    { timeout: startTimeoutMs(), interval: 20 },
  );
}

describe('platform-server CLI', () => {
  let dataDir: string;
  beforeAll(() => {
    // The binary is what users run: build it when the test runs before `build`.
    if (!existsSync(cli))
      execFileSync(join(root, 'node_modules', '.bin', 'tsup'), { cwd: root, stdio: 'ignore' });
    dataDir = mkdtempSync(join(tmpdir(), 'platform-cli-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it(
    'prints the development credentials once, serves with them, and stops on SIGTERM',
    async () => {
      const port = await freePort();
      const args = [
        'serve',
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
        '--data-dir',
        dataDir,
        '--log-level',
        'warn',
      ];
      const first = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      const output = await outputMatching(collectOutput(first), /PLATFORM_DEV_CREDENTIALS .*\n/);
      const credentials = JSON.parse(/PLATFORM_DEV_CREDENTIALS (.*)\n/.exec(output)?.[1] ?? 'null');
      expect(credentials).toMatchObject({ instance: 'dev', scopes: ['user', 'data', 'chat'] });
      expect(output).toContain(`client secret: ${credentials.clientSecret}`);

      // The credentials are printed before the server listens: retry until it answers.
      const token = await vi.waitFor(
        () =>
          fetch(`http://127.0.0.1:${port}/oauth/token?grant_type=client_credentials`, {
            headers: {
              authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
            },
          }),
        { timeout: startTimeoutMs(), interval: 100 },
      );
      expect(token.status).toBe(200);

      // Another server on the same data directory is refused, with the reason; the clients command is not.
      const lock = JSON.parse(readFileSync(join(dataDir, 'server.lock'), 'utf8'));
      expect(lock.pid).toBe(first.pid);
      const otherPort = await freePort();
      const refused = spawnSync(
        process.execPath,
        [cli, 'serve', '--port', String(otherPort), '--host', '127.0.0.1', '--data-dir', dataDir],
        { encoding: 'utf8', timeout: startTimeoutMs() },
      );
      expect(refused.status, refused.stderr).toBe(1);
      expect(refused.stderr).toContain(
        `the data directory ${dataDir} is in use by another platform server (pid ${first.pid}`,
      );
      expect(refused.stderr).toContain('PLATFORM_DATA_DIR=');
      expect(run(['clients', 'list', '--data-dir', dataDir])).toContain('dev');
      expect(existsSync(join(dataDir, 'server.lock'))).toBe(true);

      const exit = new Promise<number | null>((resolve) => first.on('exit', (code) => resolve(code)));
      first.kill('SIGTERM');
      expect(await exit).toBe(0);
      // Released on a clean stop.
      expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);

      // Second start on the same data: no credentials printed again.
      const second = spawn(process.execPath, [cli, ...args.slice(0, -2), '--log-level', 'info'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const log = await outputMatching(collectOutput(second), /platform server started/);
      expect(log).not.toContain('PLATFORM_DEV_CREDENTIALS');
      const secondExit = new Promise<number | null>((resolve) => second.on('exit', (code) => resolve(code)));
      second.kill('SIGINT');
      expect(await secondExit).toBe(0);
    },
    3 * startTimeoutMs(),
  );

  it(
    'replaces the lock of a server that is gone, saying so',
    async () => {
      const staleDir = mkdtempSync(join(tmpdir(), 'platform-cli-stale-'));
      try {
        // What a killed server leaves: its lock, naming a pid no process has (above Linux's pid_max).
        const deadPid = 2 ** 22 + 1;
        writeFileSync(
          join(staleDir, 'server.lock'),
          JSON.stringify({ pid: deadPid, startedAt: '2026-11-24T10:00:00.000Z' }),
        );
        const port = await freePort();
        const server = spawn(
          process.execPath,
          [cli, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', staleDir],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        const log = await outputMatching(collectOutput(server), /platform server started/);
        expect(log).toContain(`removing the stale lock ${join(staleDir, 'server.lock')} of pid ${deadPid}`);
        expect(JSON.parse(readFileSync(join(staleDir, 'server.lock'), 'utf8')).pid).toBe(server.pid);
        const exit = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
        server.kill('SIGTERM');
        expect(await exit).toBe(0);
      } finally {
        rmSync(staleDir, { recursive: true, force: true });
      }
    },
    2 * startTimeoutMs(),
  );

  it('creates, lists and deletes clients', () => {
    const created = JSON.parse(
      run([
        'clients',
        'create',
        '--instance',
        'acme',
        '--scopes',
        'user,data',
        '--name',
        'CI',
        '--json',
        '--data-dir',
        dataDir,
      ]),
    );
    expect(Object.keys(created).sort()).toEqual(['clientId', 'clientSecret']);
    const list = JSON.parse(run(['clients', 'list', '--json', '--data-dir', dataDir]));
    expect(list.find((c: { clientId: string }) => c.clientId === created.clientId)).toMatchObject({
      instance: 'acme',
      scopes: ['user', 'data'],
      name: 'CI',
    });
    expect(JSON.stringify(list)).not.toContain(created.clientSecret);
    expect(run(['clients', 'delete', created.clientId, '--data-dir', dataDir])).toContain('deleted');
    expect(() => run(['clients', 'delete', created.clientId, '--data-dir', dataDir])).toThrow();
  });

  it('lists and rotates the token signing keys', () => {
    // The server of the first test created the first key on start.
    const before = JSON.parse(run(['keys', 'list', '--json', '--data-dir', dataDir]));
    expect(before).toHaveLength(1);
    expect(before[0].retiredAt).toBeNull();
    const { kid } = JSON.parse(run(['keys', 'rotate', '--json', '--data-dir', dataDir]));
    const after = JSON.parse(run(['keys', 'list', '--json', '--data-dir', dataDir]));
    expect(after.map((key: { kid: string }) => key.kid)).toEqual([kid, before[0].kid]);
    expect(after[0].retiredAt).toBeNull();
    expect(typeof after[1].retiredAt).toBe('number');
    expect(run(['keys', 'list', '--data-dir', dataDir])).toMatch(new RegExp(`^${kid} .* signing\\n`, 'm'));
  });

  // Eleven processes started one after the other: room for a loaded machine.
  it('prints the usage with every option of the declaration, for --help and -h after any command', () => {
    for (const args of [
      ['help'],
      ['--help'],
      ['-h'],
      ['serve', '--help'],
      ['serve', '-h'],
      ['clients', '--help'],
      ['clients', 'create', '--help'],
      ['clients', 'list', '-h'],
      ['clients', 'delete', '--help'],
      ['keys', 'rotate', '--help'],
      ['keys', 'list', '-h'],
    ]) {
      const usage = run(args);
      expect(usage, args.join(' ')).toContain('platform-server serve [options]');
      expect(usage, args.join(' ')).toContain(optionsHelp(SERVER_OPTIONS));
    }
  }, 180_000);

  it('npm run bench -- --help prints its usage and measures nothing', () => {
    for (const flag of ['--help', '-h']) {
      const usage = execFileSync(process.execPath, [join(root, 'bench', 'bench.mjs'), flag], {
        encoding: 'utf8',
      });
      expect(usage).toContain('npm run bench -- [--duration 8]');
      expect(usage).toContain('--only picks scenarios');
    }
  });

  it('names the option, where its bad value came from and what is allowed', () => {
    try {
      run(['serve', '--data-dir', dataDir, '--delivery-lease', '1ms'], { PORT: 'eighty' });
      expect.unreachable();
    } catch (error) {
      const e = error as { status: number; stderr: string };
      expect(e.status).toBe(2);
      expect(e.stderr).toContain('PORT (--port) must be an integer from 0 to 65535, got "eighty"');
      expect(e.stderr).toContain(
        '--delivery-lease must be a duration like 500ms, 10s, 5m, 2h (at least 1000 ms)',
      );
    }
  });

  it('refuses bad input with a clear message and exit code 2', () => {
    for (const args of [
      ['clients', 'create', '--instance', 'acme', '--scopes', 'root'],
      ['clients', 'create', '--scopes', 'user'],
      ['serve', '--port', 'eighty', '--data-dir', dataDir],
      ['frobnicate'],
      ['keys', 'forget', '--data-dir', dataDir],
    ]) {
      try {
        run(args);
        expect.unreachable(args.join(' '));
      } catch (error) {
        const e = error as { status: number; stderr: string };
        expect(e.status, args.join(' ')).toBe(2);
        expect(e.stderr.length).toBeGreaterThan(0);
      }
    }
  });
});
