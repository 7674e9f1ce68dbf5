// Storage faults with the real server (`node dist/cli.js serve`) on SQLite and a real file system:
// - a full disk (a small tmpfs this test mounts, filled up): writes answer 503 ApiError + Retry-After,
//   reads keep working, /readyz answers 503 until a write succeeds again, and the log names the cause
//   ("database or disk is full") once for the episode;
// - a database that cannot be used at start (a read-only data directory, one impossible to create, a
//   PostgreSQL that refuses the connection): one line and exit code 3.
// Mounting needs root (CI runs as root); without it the tmpfs tests are skipped loudly.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, unavailable } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CreatedClient, createClient } from '../src/auth/clients.js';
import { systemClock } from '../src/clock.js';
import { createDatabase } from '../src/db/database.js';
import { type ServeProcess, startServeProcess } from './delivery/support.js';
import { apiClient } from './helpers/api.js';
import { schemaProblems } from './helpers/spec-validator.js';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');

/** Mounts a tmpfs of `size` at a new folder; undefined (and the reason) when this machine does not let us. */
function mountTmpfs(size: string): { dir: string } | { problem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'storage-fault-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
    return { problem: `cannot mount a tmpfs to fill up (${stderr || 'mount failed'}; needs root)` };
  }
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  } catch {
    // Still busy (a process that did not exit): detach it now, it goes when the last user does.
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Writes a file until the file system is full; returns its path. */
function fillUp(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  try {
    for (const size of [1 << 20, 1 << 12, 1 << 9]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

/** A call whose answer is checked against the spec (helpers/api.ts): a 503 must be the documented one. */
async function call(baseUrl: string, method: string, path: string, token?: string, json?: unknown) {
  const answer = await apiClient(baseUrl)(method, path, { token, json });
  return { status: answer.status, retryAfter: answer.headers.get('retry-after'), body: answer.body };
}

/** Whether this machine lets the test mount a tmpfs: one is mounted and unmounted at once. */
function mountProblem(): string | undefined {
  const probe = mountTmpfs('1m');
  if ('problem' in probe) return probe.problem;
  unmount(probe.dir);
  return undefined;
}

const FULL_DISK = 'a full disk under the SQLite database';
const cannotMount = mountProblem();

if (cannotMount) unavailable(FULL_DISK, cannotMount);
else describe(FULL_DISK, fullDisk);

function fullDisk() {
  // Mounted by the hooks, not while the file is collected: a filtered run (-t) skips both hooks.
  let mount: string | undefined;
  let dataDir: string;
  let server: ServeProcess | undefined;
  let baseUrl: string;
  let client: CreatedClient;
  let filler: string | undefined;

  beforeAll(async () => {
    const mounted = mountTmpfs('12m');
    if ('problem' in mounted) throw new Error(mounted.problem);
    mount = mounted.dir;
    dataDir = join(mount, 'data');
    const setup = await createDatabase({ dataDir, databaseUrl: undefined });
    client = await createClient(setup.db, systemClock, {
      instance: 'acme',
      scopes: ['user'],
      name: 'writer',
    });
    await setup.close();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    server = await startServeProcess(port, {
      PLATFORM_DATA_DIR: dataDir,
      PLATFORM_PUBLIC_URL: baseUrl,
      PLATFORM_RATE_LIMIT: '0',
      PLATFORM_DELIVERY: 'false',
      LOG_LEVEL: 'info',
    });
  }, 600_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    if (mount) unmount(mount);
  }, 120_000);

  it('writes answer 503 + Retry-After, reads work, readiness is 503 until a write succeeds; the cause is logged once', async () => {
    if (!server) throw new Error('no server');
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
    const tokenResponse = await fetch(`${baseUrl}/oauth/token?grant_type=client_credentials&scope=user`, {
      headers: { authorization: `Basic ${basic}` },
    });
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
    const createUser = (n: number) =>
      call(baseUrl, 'POST', '/v1/users?sendInvite=false', token, {
        name: `User ${n} ${'x'.repeat(40)}`,
        email: `user${n}@example.com`,
        role: 'Participant',
      });
    expect((await createUser(0)).status).toBe(201);

    if (!mount) throw new Error('no tmpfs');
    filler = fillUp(mount);
    // Until SQLite needs a page it does not have, a write may still fit (the WAL reuses its space).
    const answers: Awaited<ReturnType<typeof call>>[] = [];
    for (let n = 1; n <= 2_000 && !answers.some((a) => a.status === 503); n++)
      answers.push(await createUser(n));
    const refused = answers.filter((a) => a.status !== 201);
    console.info(
      `full disk: ${answers.length - refused.length} writes fitted after the fill, then ${refused.length} refused (${[...new Set(refused.map((a) => a.status))].join(', ')})`,
    );
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(schemaProblems('ApiError', answer.body)).toEqual([]);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
    // While the disk stays full a write may still fit now and then (seen in CI beside a CPU hog: a 201
    // after a 503, likely SQLite reusing WAL space once the checkpoint worker has copied it). Whatever
    // fits is a 201; anything else a 503 in the error's shape, never a 500. Readiness follows the last
    // write: asked until a refused write and a 503 readiness are seen in a row (a write that fitted
    // between them ends the episode, rightly).
    let refusedThenNotReady = false;
    for (let n = 10_000; n < 10_050 && !refusedThenNotReady; n++) {
      const answer = await createUser(n);
      expect([201, 503]).toContain(answer.status);
      if (answer.status !== 503) continue;
      expect(schemaProblems('ApiError', answer.body)).toEqual([]);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      refusedThenNotReady = (await call(baseUrl, 'GET', '/readyz')).status === 503;
    }
    expect(refusedThenNotReady).toBe(true);
    expect((await call(baseUrl, 'GET', '/healthz')).status).toBe(200);
    const read = await call(baseUrl, 'GET', '/v1/users?limit=5&offset=0', token);
    expect(read.status).toBe(200);
    expect(Array.isArray(read.body)).toBe(true);

    // Space again: readiness turns 200 once its probe write succeeds, and writes work.
    rmSync(filler);
    await vi.waitFor(async () => expect((await call(baseUrl, 'GET', '/readyz')).status).toBe(200), {
      timeout: 60_000,
    });
    expect((await createUser(20_000)).status).toBe(201);

    // The real cause, once an episode (one, unless a write that fitted ended it early: then one line each,
    // as many as the lines saying it works again); never the rollback that SQLite had already done itself.
    const count = (pattern: RegExp) => server?.output().match(pattern)?.length ?? 0;
    await vi.waitFor(() => expect(count(/the database works again/g)).toBeGreaterThan(0), {
      timeout: 60_000,
    });
    const episodes = count(/refuses writes \(database or disk is full\)/g);
    expect(episodes).toBeGreaterThan(0);
    await vi.waitFor(() => expect(count(/the database works again/g)).toBe(episodes), { timeout: 60_000 });
    expect(server.output()).not.toMatch(/cannot rollback/);
  }, 600_000);
}

describe('a database the server cannot use at start', () => {
  const run = (dataDir: string, ...more: string[]) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir, ...more], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH, PLATFORM_BOOTSTRAP: 'false' },
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('exit', (code) => resolve({ code, stderr }));
    });

  it('a data directory that cannot be created: one line naming it, exit code 3', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storage-start-'));
    try {
      const file = join(dir, 'a-file');
      writeFileSync(file, '');
      const { code, stderr } = await run(join(file, 'data'));
      expect(code).toBe(3);
      expect(stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^platform-server: the data directory .*a-file\/data does not exist and cannot be created/,
        ),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('a PostgreSQL that does not answer: one line naming why, exit code 3', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'storage-start-'));
    try {
      // A port nothing listens on: the connection is refused.
      const url = `postgres://postgres@127.0.0.1:${await freePort()}/test`;
      const { code, stderr } = await run(dir, '--database-url', url);
      expect(code).toBe(3);
      expect(stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^platform-server: the database cannot be used: .*ECONNREFUSED/),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  if (cannotMount) {
    unavailable('a read-only data directory at start', cannotMount);
    return;
  }

  it('a read-only data directory: one line naming it, exit code 3', async () => {
    const readOnly = mountTmpfs('4m');
    if ('problem' in readOnly) throw new Error(readOnly.problem);
    try {
      mkdirSync(join(readOnly.dir, 'data'));
      execFileSync('mount', ['-o', 'remount,ro', readOnly.dir], { stdio: 'pipe' });
      const { code, stderr } = await run(join(readOnly.dir, 'data'));
      expect(code).toBe(3);
      expect(stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^platform-server: the data directory .* is not writable \(read-only file system\)$/,
        ),
      ]);
    } finally {
      unmount(readOnly.dir);
    }
  }, 120_000);
});
