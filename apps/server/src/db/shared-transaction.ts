import { type Kysely, sql } from 'kysely';
import { perTurnOfDatabase, type TurnBatch } from './per-turn.js';
import type { Database } from './schema.js';

// SQLite: the writes started in the same turn of the event loop share one transaction, each within a
// savepoint of its own, so one commit (its WAL write, the largest single cost of a small write there)
// serves them all while one that fails still fails alone; a failed commit fails them all, as it would
// have each. Used where small writes arrive many at once (posting chat messages; issue 26, item 2).

type Write = (trx: Kysely<Database>) => Promise<void>;

/** Runs `write` in the transaction shared by the writes of this turn; settles once that has committed. */
export const writeInSharedTransaction = perTurnOfDatabase<Write>(commitTogether);

async function commitTogether(db: Kysely<Database>, batch: TurnBatch<Write>): Promise<void> {
  const failures = new Map<number, unknown>();
  try {
    await db.transaction().execute(async (trx) => {
      const [only] = batch;
      if (only && batch.length === 1) return only.item(trx);
      for (const [index, { item: write }] of batch.entries()) {
        await sql`savepoint shared_write`.execute(trx);
        try {
          await write(trx);
        } catch (error) {
          // Some errors (a full disk, an I/O error) end the whole transaction in SQLite: then the savepoint
          // is gone, and the first error is what every write in the batch fails with.
          await sql`rollback to shared_write`.execute(trx).catch(() => {
            throw error;
          });
          failures.set(index, error ?? new Error('not written'));
        }
        await sql`release shared_write`.execute(trx);
      }
    });
  } catch (error) {
    for (const { settle } of batch) settle(error ?? new Error('not written'));
    return;
  }
  for (const [index, { settle }] of batch.entries()) settle(failures.get(index));
}
