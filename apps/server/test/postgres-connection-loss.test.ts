import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { expect, it } from 'vitest';
import { createDatabase } from '../src/db/database.js';
import { describePostgres, TEST_DATABASE_URL } from './helpers/databases.js';

/*
 * A PostgreSQL connection that the server ends (a restart, a failover: 57P01 "terminating connection due
 * to administrator command") while the pool has it checked out — between two queries of one piece of
 * work — must not crash the process: pg reports it as an 'error' event on the client, and an unhandled
 * one ends Node. It is reported, and the next query gets a working connection.
 */
describePostgres('a PostgreSQL connection ended by the server', () => {
  it('is reported, not fatal, while checked out; the pool serves the next query', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-server-test-'));
    const schema = `test_${process.pid}_loss`;
    const reported: Error[] = [];
    const database = await createDatabase({
      dataDir,
      databaseUrl: TEST_DATABASE_URL,
      databaseSchema: schema,
      onConnectionError: (error) => reported.push(error),
    });
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      await database.db.connection().execute(async (connection) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection);
        await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
        // The connection is still checked out when its end arrives.
        await expect.poll(() => reported.length, { timeout: 10_000 }).toBeGreaterThan(0);
      });
      expect(reported[0]?.message).toMatch(/terminat/i);
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await database.close();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
