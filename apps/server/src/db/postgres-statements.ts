import type { PostgresPool } from 'kysely';
import type * as pg from 'pg';

/** Distinct query texts that get a named (server-side prepared) statement; later ones run unnamed. */
const MAX_NAMED_STATEMENTS = 1000;

/**
 * The pool as Kysely's PostgreSQL dialect sees it, with each parameterised query text a named statement:
 * pg then parses and plans it once per connection and afterwards sends only Bind/Execute, where Kysely
 * would have every query parsed anew. Queries without parameters keep the simple protocol (they may hold
 * several statements, as migrations do).
 */
export function withNamedStatements(pool: pg.Pool): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name && names.size < MAX_NAMED_STATEMENTS) {
      name = `platform_${names.size}`;
      names.set(text, name);
    }
    return name;
  };
  const patched = new WeakSet<pg.PoolClient>();
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  return {
    options: pool.options,
    end: () => pool.end(),
    async connect() {
      const client = await connect();
      if (!patched.has(client)) {
        patched.add(client);
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        client.query = ((text: unknown, values?: unknown) => {
          const name = typeof text === 'string' && Array.isArray(values) && values.length > 0 && nameOf(text);
          return name ? query({ name, text, values }) : query(text, values);
        }) as typeof client.query;
      }
      return client;
    },
  };
}
