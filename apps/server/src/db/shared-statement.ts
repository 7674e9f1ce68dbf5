import { type Kysely, type RawBuilder, sql } from 'kysely';
import { storageFault } from './faults.js';
import { perTurnOfDatabase, type TurnBatch } from './per-turn.js';
import type { Database } from './schema.js';

// PostgreSQL: the inserts started in the same turn of the event loop are made by one statement — one
// round trip, one commit, one wake-up of the outbox's listeners (its trigger fires per statement) —
// instead of one each; the counterpart of SQLite's shared transaction (shared-transaction.ts). When the
// shared statement is refused for a reason of one insert's own (a constraint, a trigger), each is made
// again alone, so that one refused insert fails alone. Used where small writes arrive many at once
// (posting chat messages; issue 26, item 2).

type TableName = keyof Database & string;

/** Rows to insert, table by table, in the order given; each row has every column of its table. */
export type Inserts = ReadonlyArray<{ table: TableName; rows: ReadonlyArray<object> }>;

/** Makes the inserts in the statement shared by the inserts of this turn; settles once it has committed. */
export const insertInSharedStatement = perTurnOfDatabase<Inserts>(insertTogether);

async function insertTogether(db: Kysely<Database>, batch: TurnBatch<Inserts>): Promise<void> {
  try {
    await insertStatement(batch.flatMap(({ item }) => item)).execute(db);
  } catch (error) {
    // A database that is unreachable or refuses writes refuses each alone too.
    if (batch.length === 1 || storageFault(error)) {
      for (const { settle } of batch) settle(error ?? new Error('not written'));
      return;
    }
    await Promise.all(
      batch.map(({ item, settle }) =>
        insertStatement(item)
          .execute(db)
          .then(
            () => settle(),
            (alone) => settle(alone ?? new Error('not written')),
          ),
      ),
    );
    return;
  }
  for (const { settle } of batch) settle();
}

/**
 * One statement inserting every row, one JSON parameter per table; the SQL text depends only on the
 * tables, so it stays one prepared statement however many rows. Rows are expanded with the table's own
 * row type (`jsonb_populate_recordset`), so `select *` lists the columns in the table's order.
 */
function insertStatement(inserts: Inserts): RawBuilder<unknown> {
  const rowsByTable = new Map<TableName, object[]>();
  for (const { table, rows } of inserts) {
    if (rows.length > 0) rowsByTable.set(table, [...(rowsByTable.get(table) ?? []), ...rows]);
  }
  const parts = [...rowsByTable].map(
    ([table, rows]) =>
      sql`insert into ${sql.table(table)} select * from jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(rows)}::jsonb)`,
  );
  const last = parts.pop();
  if (!last) throw new Error('nothing to insert');
  if (parts.length === 0) return last;
  const ctes = parts.map((part, index) => sql`${sql.raw(`insert_${index}`)} as (${part})`);
  return sql`with ${sql.join(ctes)} ${last}`;
}
