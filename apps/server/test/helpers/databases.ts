import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabaseUrl, unavailable } from '@platform-api/test-support';
import pg from 'pg';
import { describe } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import type { Dialect } from '../../src/db/schema.js';

/*
 * The dialects a test file runs on: SQLite always; PostgreSQL when this checkout's answers (test-support's
 * testDatabaseUrl: PLATFORM_TEST_DATABASE_URL, else the private cluster scripts/postgres started).
 * When it does not, the PostgreSQL runs are skipped LOUDLY — except under CI=true, where they must run.
 */

const testDatabase = testDatabaseUrl();
/** This checkout's PostgreSQL (test-support's testDatabaseUrl); empty when there is none. */
export const TEST_DATABASE_URL = testDatabase.url ?? '';

/** The URL without its password, for messages. */
const shownUrl = TEST_DATABASE_URL.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');

async function postgresProblem(): Promise<string | undefined> {
  if (!testDatabase.url) return testDatabase.source;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 30_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return `${shownUrl} is unreachable (${(error as Error).message}); \`npm test\` starts a PostgreSQL when it can (scripts/postgres), or set PLATFORM_TEST_DATABASE_URL`;
  } finally {
    await client.end().catch(() => {});
  }
}

const postgresMissing = await postgresProblem();

/**
 * Registers `suite` once per dialect, titled with `%s` replaced by the dialect's name. Without PostgreSQL
 * its run is registered skipped, so each of its tests is counted (and the reason named) in the totals;
 * under CI=true it is a failing test instead.
 */
export function describeEachDialect(title: string, suite: (dialect: Dialect) => void): void {
  describe(title.replace('%s', 'sqlite'), () => suite('sqlite'));
  describePostgres(title.replace('%s', 'postgres'), () => suite('postgres'));
}

/** Registers a suite that needs PostgreSQL (several processes on one database), skipped like the above. */
export function describePostgres(title: string, suite: () => void): void {
  if (postgresMissing === undefined) {
    describe(title, suite);
    return;
  }
  describe(title, () =>
    unavailable(title, postgresMissing, {
      registerSkipped: (skipped) => describe.skip(skipped, suite),
    }),
  );
}

/** A fresh database: a new SQLite file in a temp dir, or a new PostgreSQL schema. Removed by cleanup(). */
export async function freshDatabase(dialect: Dialect): Promise<{
  database: DatabaseHandle;
  dataDir: string;
  databaseUrl: string | undefined;
  databaseSchema: string | undefined;
  cleanup(): Promise<void>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-server-test-'));
  if (dialect === 'sqlite') {
    const database = await createDatabase({ dataDir, databaseUrl: undefined });
    return {
      database,
      dataDir,
      databaseUrl: undefined,
      databaseSchema: undefined,
      cleanup: async () => {
        await database.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const schema = `test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const database = await createDatabase({ dataDir, databaseUrl: TEST_DATABASE_URL, databaseSchema: schema });
  return {
    database,
    dataDir,
    databaseUrl: TEST_DATABASE_URL,
    databaseSchema: schema,
    cleanup: async () => {
      await database.close();
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
