// SQLite's WAL is checkpointed by a worker thread, not inside the commits of the thread that answers
// requests (src/db/checkpointer.ts): rows written through the server's connection reach the database file
// without that connection checkpointing, and closing the database ends the worker.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, expect, it, vi } from 'vitest';
import { createDatabase } from '../src/db/database.js';

const dataDir = mkdtempSync(join(tmpdir(), 'checkpointer-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('copies the WAL into the database file from a worker thread while the connection writes', async () => {
  const database = await createDatabase({ dataDir, databaseUrl: undefined });
  const file = join(dataDir, 'platform.sqlite');
  await sql`create table filler (bytes blob)`.execute(database.db);
  const before = statSync(file).size;
  // About 2 MB, far below the connection's own auto-checkpoint bound (10,000 pages): only the worker
  // can have copied it into the database file.
  for (let i = 0; i < 500; i++) await sql`insert into filler values (randomblob(4096))`.execute(database.db);
  await vi.waitFor(() => expect(statSync(file).size).toBeGreaterThan(before + 2_000_000), {
    timeout: 30_000,
    interval: 50,
  });
  await database.close();
});
