import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../src/db/database.js';
import { migrateUpTo } from '../src/db/migrations.js';

/*
 * SQLite's planner with statistics taken when the tables were nearly empty scans tables it should look up
 * by key (once: a message posted cost 5 ms once 30,000 users existed). The server keeps none.
 */

const MESSAGE_BY_ID = `SELECT messages.*, users.name FROM messages
  LEFT JOIN users ON users.id = messages.author_user_id WHERE messages.id = 'm1'`;

async function plan(database: DatabaseHandle, query: string): Promise<string> {
  const { rows } = await sql<{ detail: string }>`EXPLAIN QUERY PLAN ${sql.raw(query)}`.execute(database.db);
  return rows.map((row) => row.detail).join(' | ');
}

describe('SQLite planner statistics', () => {
  const dirs: string[] = [];
  const open: DatabaseHandle[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((database) => database.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const start = async (dataDir: string) => {
    const database = await createDatabase({ dataDir, databaseUrl: undefined });
    open.push(database);
    return database;
  };

  it('records none when the server starts, however often', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'planner-'));
    dirs.push(dataDir);
    for (let i = 0; i < 3; i++) await (await start(dataDir)).close();
    open.length = 0;
    const file = new SQLite(join(dataDir, 'platform.sqlite'));
    const stats = file
      .prepare(`SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'`)
      .all() as unknown[];
    const rows = stats.length > 0 ? (file.prepare('SELECT * FROM sqlite_stat1').all() as unknown[]) : [];
    file.close();
    expect(rows).toEqual([]);
  });

  it('forgets statistics an earlier version left, and looks rows up by key', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'planner-'));
    dirs.push(dataDir);
    // A database of the version before the fix: migrated up to 0005 only.
    const earlier = new Kysely({
      dialect: new SqliteDialect({ database: new SQLite(join(dataDir, 'platform.sqlite')) }),
    });
    await migrateUpTo(earlier, 'sqlite', '0005_self_waking_outbox');
    await earlier.destroy();
    // What earlier versions did at every start: analyse the (then small) tables.
    const file = new SQLite(join(dataDir, 'platform.sqlite'));
    file.exec(`INSERT INTO instances (name, domain, created_at) VALUES ('i', 'i.example.com', 0);
      INSERT INTO users (instance_id, name, email, role, created_at, updated_at)
        VALUES (1, 'Ada', 'ada@example.com', 'Admin', 0, 0);
      INSERT INTO channels (id, instance_id, title, visibility, creator_id, created_at)
        VALUES ('c1', 1, 'general', 'PUBLIC', 1, 0);
      INSERT INTO messages (id, instance_id, channel_id, author_user_id, author_name, text, created_at)
        VALUES ('m1', 1, 'c1', 1, 'Ada', 'hello', 0);
      ANALYZE;`);
    file.close();
    // The precondition: with those statistics the planner scans the messages table.
    const stale = new SQLite(join(dataDir, 'platform.sqlite'));
    const stalePlan = (stale.prepare(`EXPLAIN QUERY PLAN ${MESSAGE_BY_ID}`).all() as { detail: string }[])
      .map((row) => row.detail)
      .join(' | ');
    stale.close();
    expect(stalePlan).toMatch(/SCAN messages/);

    const database = await start(dataDir);
    expect(await plan(database, MESSAGE_BY_ID)).toMatch(/SEARCH messages USING INDEX \S+ \(id=\?\)/);
  });

  it('binds LIMIT and OFFSET where its planner does not read them, and still applies them', async () => {
    // A bound LIMIT or OFFSET the planner reads makes SQLite recompile the statement on every run
    // (sqlite-statements.ts, PreparedOnceSqliteCompiler): they are bound behind a cast, which must still
    // count.
    const dataDir = mkdtempSync(join(tmpdir(), 'planner-'));
    dirs.push(dataDir);
    const { db } = await start(dataDir);
    await db
      .insertInto('instances')
      .values(['a', 'b', 'c', 'd'].map((name) => ({ name, domain: `${name}.example.com`, created_at: 0 })))
      .execute();
    const page = db.selectFrom('instances').select('name').orderBy('id').limit(2).offset(1);
    expect(page.compile().sql).toMatch(/limit cast\(\? as integer\) offset cast\(\? as integer\)$/);
    expect(await page.execute()).toEqual([{ name: 'b' }, { name: 'c' }]);
  });
});
