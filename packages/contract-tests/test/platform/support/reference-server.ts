// Runs the reference server (apps/server) as a black box (test-support's startReferenceServer): its CLI
// creates clients, `serve` runs it, on SQLite (a temp data dir) or PostgreSQL (a fresh schema), as a user would.

import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import {
  type ReferenceServer,
  type ReferenceServerOptions as ServerOptions,
  startReferenceServer as start,
  testDatabaseUrl,
  unavailable,
} from '@platform-api/test-support';
import pg from 'pg';

const require = createRequire(import.meta.url);
// The package's entry point lives in dist/, next to the CLI.
const cli = join(dirname(require.resolve('@platform-api/server')), 'cli.js');

export type DatabaseKind = 'sqlite' | 'postgres';
const testDatabase = testDatabaseUrl();
/** This checkout's PostgreSQL (test-support's testDatabaseUrl); empty when there is none. */
export const postgresUrl = testDatabase.url ?? '';

/** Whether PostgreSQL answers on its TCP port; the reason when it does not. */
async function postgresUnavailable(): Promise<string | undefined> {
  if (!testDatabase.url) return testDatabase.source;
  const { hostname, port } = new URL(testDatabase.url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 5432) });
    socket.setTimeout(30_000);
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

export type { ReferenceServer };

export interface ReferenceServerOptions {
  /** Every line the server writes (stdout and stderr); without it, its output goes to the test's. */
  onOutput?: (line: string) => void;
  /** Serve HTTPS with this certificate (test-support's selfSignedCertificate()). */
  tls?: ServerOptions['tls'];
}

/** test-support's reference server, on SQLite (its own temp folder) or PostgreSQL (a fresh schema, dropped). */
export async function startReferenceServer(
  database: DatabaseKind,
  extraEnv: Record<string, string> = {},
  options: ReferenceServerOptions = {},
): Promise<ReferenceServer> {
  if (database === 'sqlite') return start(cli, { env: extraEnv, onLine: options.onOutput, tls: options.tls });
  const schema = `contract_${process.pid}_${Date.now()}`;
  const dropSchema = async () => {
    // Leave the shared test database as we found it.
    const connection = new pg.Client({ connectionString: postgresUrl });
    await connection.connect();
    await connection.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await connection.end();
  };
  const server = await start(cli, {
    env: { ...extraEnv, DATABASE_URL: postgresUrl, PLATFORM_DATABASE_SCHEMA: schema },
    onLine: options.onOutput,
    tls: options.tls,
  }).catch(async (error: unknown) => {
    await dropSchema().catch(() => {});
    throw error;
  });
  return {
    ...server,
    async close() {
      await server.close();
      await dropSchema();
    },
  };
}
