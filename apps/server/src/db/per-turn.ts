import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

// What is asked of one database in the same turn of the event loop, handed over together at the end of
// that turn (setImmediate): the shared transaction of SQLite (shared-transaction.ts) and the shared
// statement of PostgreSQL (shared-statement.ts).

/** The items of one turn, each with how its caller is answered. */
export type TurnBatch<T> = Array<{ item: T; settle: (error?: unknown) => void }>;

/**
 * A function that queues an item for its database's current turn and resolves (or rejects) once `flush`
 * has settled it; `flush` gets each turn's items of one database together.
 */
export function perTurnOfDatabase<T>(
  flush: (db: Kysely<Database>, batch: TurnBatch<T>) => Promise<void>,
): (db: Kysely<Database>, item: T) => Promise<void> {
  const waiting = new WeakMap<Kysely<Database>, TurnBatch<T>>();
  return (db, item) =>
    new Promise((resolve, reject) => {
      let batch = waiting.get(db);
      if (!batch) {
        const started: TurnBatch<T> = [];
        waiting.set(db, started);
        setImmediate(() => {
          waiting.delete(db);
          void flush(db, started);
        });
        batch = started;
      }
      batch.push({ item, settle: (error) => (error === undefined ? resolve() : reject(error)) });
    });
}
