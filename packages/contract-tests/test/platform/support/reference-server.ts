// Runs the reference server (apps/server) as a black box: its CLI creates clients, `serve` runs it,
// on SQLite (a temp data dir) or PostgreSQL (a fresh schema), as a user would.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { unavailable } from '@platform-api/test-support';
import pg from 'pg';
import { expect, vi } from 'vitest';
import { freePort } from '../../../src/index.js';

const require = createRequire(import.meta.url);
// The package's entry point lives in dist/, next to the CLI.
const cli = join(dirname(require.resolve('@platform-api/server')), 'cli.js');

export type DatabaseKind = 'sqlite' | 'postgres';
export const postgresUrl =
  process.env.PLATFORM_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Whether PostgreSQL answers on its TCP port; the reason when it does not. */
async function postgresUnavailable(): Promise<string | undefined> {
  const { hostname, port } = new URL(postgresUrl);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 5432) });
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(`no answer from ${hostname}:${port}`);
    });
    socket.once('error', (error) => resolve(`${hostname}:${port}: ${error.message}`));
  });
}

/**
 * The databases a suite runs the reference server on: SQLite always, PostgreSQL when it answers; without
 * it, the PostgreSQL run stands as a loud skip (a failure under CI=true).
 */
export async function referenceServerDatabases(suite: string): Promise<DatabaseKind[]> {
  const problem = await postgresUnavailable();
  if (!problem) return ['sqlite', 'postgres'];
  unavailable(
    `${suite} on PostgreSQL`,
    `PostgreSQL is not reachable (${problem}); npm test starts one, or set PLATFORM_TEST_DATABASE_URL`,
  );
  return ['sqlite'];
}

export interface ReferenceServer {
  url: string;
  createClient(instance: string, scopes: string[]): Promise<{ clientId: string; clientSecret: string }>;
  deleteClient(clientId: string): Promise<void>;
  close(): Promise<void>;
}

export interface ReferenceServerOptions {
  /** Every line the server writes (stdout and stderr); without it, its output goes to the test's. */
  onOutput?: (line: string) => void;
}

export async function startReferenceServer(
  database: DatabaseKind,
  extraEnv: Record<string, string> = {},
  options: ReferenceServerOptions = {},
): Promise<ReferenceServer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'warn',
    PLATFORM_BOOTSTRAP: 'false',
    PLATFORM_PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...extraEnv,
  };
  // A fresh temp data folder (SQLite) or schema (PostgreSQL), deleted by close() or a failed start.
  let ownDataDir: string | undefined;
  if (database === 'sqlite') {
    ownDataDir = mkdtempSync(join(tmpdir(), 'contract-server-'));
    env.PLATFORM_DATA_DIR = ownDataDir;
    delete env.DATABASE_URL;
  } else {
    env.DATABASE_URL = postgresUrl;
    env.PLATFORM_DATABASE_SCHEMA = `contract_${process.pid}_${Date.now()}`;
  }
  const runCli = async (...args: string[]) =>
    (await promisify(execFile)(process.execPath, [cli, ...args], { env })).stdout;

  // Creating a client first also creates the database and runs the migrations.
  const child: ChildProcess = spawn(
    process.execPath,
    [cli, 'serve', '--port', String(port), '--host', '127.0.0.1'],
    { env, stdio: ['ignore', options.onOutput ? 'pipe' : 'inherit', options.onOutput ? 'pipe' : 'inherit'] },
  );
  const { onOutput } = options;
  if (onOutput) {
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', onOutput);
    }
  }
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
    }
    if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    if (env.PLATFORM_DATABASE_SCHEMA) {
      // Leave the shared test database as we found it.
      const connection = new pg.Client({ connectionString: postgresUrl });
      await connection.connect();
      await connection.query(`DROP SCHEMA IF EXISTS "${env.PLATFORM_DATABASE_SCHEMA}" CASCADE`);
      await connection.end();
    }
  };
  try {
    await vi.waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`the reference server exited with ${child.exitCode}`);
        expect((await fetch(`${url}/readyz`)).status, 'the reference server is not ready within 60 s').toBe(
          200,
        );
      },
      { timeout: 60_000, interval: 200 },
    );
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }

  return {
    url,
    async createClient(instance, scopes) {
      const out = await runCli(
        'clients',
        'create',
        '--instance',
        instance,
        '--scopes',
        scopes.join(','),
        '--json',
      );
      return JSON.parse(out) as { clientId: string; clientSecret: string };
    },
    async deleteClient(clientId) {
      await runCli('clients', 'delete', clientId);
    },
    close: stop,
  };
}
