import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from 'kysely';

/*
 * Queries on the hot paths, built and compiled by Kysely once per database instead of once per call.
 * Building and compiling a query costs more than SQLite takes to run it (profiles of the read path): here the
 * builder runs once with placeholder arguments, and every call sends the same SQL text (which the
 * statement cache in sqlite-statements.ts has already prepared) with its own arguments in the placeholders' places.
 * Only for queries whose shape does not depend on the arguments' values: the builder must not branch on them.
 */

class Placeholder {
  constructor(readonly index: number) {}
}

interface Template {
  sql: string;
  /** Each parameter: an argument's index, or a constant the builder put there. */
  parameters: Array<{ argument: number } | { constant: unknown }>;
}

/**
 * Runs a compiled read at once, synchronously, where the database allows it (SQLite through
 * better-sqlite3, outside any open transaction); undefined sends it through Kysely. Registered by
 * createDatabase (database.ts) for the Kysely instance it makes.
 */
export type DirectReader = (sql: string, parameters: readonly unknown[]) => { rows: unknown[] } | undefined;

const directReaders = new WeakMap<object, DirectReader>();

export function registerDirectReader(db: object, reader: DirectReader): void {
  directReaders.set(db, reader);
}

export function compiledQuery<Db, Args extends unknown[], Row>(
  build: (db: Kysely<Db>, ...args: Args) => Compilable<Row>,
): (db: Kysely<Db>, ...args: Args) => Promise<QueryResult<Row>> {
  // Per dialect: SQLite and PostgreSQL compile the same builder to different SQL. Keyed by the dialect's
  // adapter, which a database shares with its transactions: a query compiled once serves both.
  const templates = new WeakMap<object, Template>();
  return async (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let template = templates.get(adapter);
    if (!template) {
      const placeholders = args.map((_, index) => new Placeholder(index)) as Args;
      const compiled = build(db, ...placeholders).compile();
      const parameters = compiled.parameters.map((value) =>
        value instanceof Placeholder ? { argument: value.index } : { constant: value },
      );
      const used = new Set(parameters.flatMap((p) => ('argument' in p ? [p.argument] : [])));
      if (used.size !== args.length) {
        // An argument the builder transformed (or dropped) cannot be bound later.
        throw new Error(
          `compiledQuery: ${args.length - used.size} argument(s) do not reach the SQL as values`,
        );
      }
      template = { sql: compiled.sql, parameters };
      templates.set(adapter, template);
    }
    const values = template.parameters.map((p) => ('argument' in p ? args[p.argument] : p.constant));
    const direct = directReaders.get(db)?.(template.sql, values);
    if (direct) return direct as QueryResult<Row>;
    return db.executeQuery<Row>(CompiledQuery.raw(template.sql, values));
  };
}
