import { type Expression, type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

/**
 * An aggregate that folds the rows of a (sub)query into a JSON array of objects, as text ('[]' when there
 * are none), in the database's own dialect: a read returns a parent and its children in one query, one
 * round trip on PostgreSQL instead of two. `fields` are the objects' keys and values, `orderBy` the order
 * of the elements (explicit: an aggregate's input order is otherwise unspecified on both databases).
 */
export function jsonArrayAgg<DB>(
  db: Kysely<DB>,
  fields: Record<string, Expression<unknown>>,
  orderBy: Expression<unknown>,
): RawBuilder<string> {
  const pairs = sql.join(Object.entries(fields).flatMap(([key, value]) => [sql.lit(key), value]));
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql<string>`coalesce(json_agg(json_build_object(${pairs}) order by ${orderBy})::text, '[]')`
    : sql<string>`json_group_array(json_object(${pairs}) order by ${orderBy})`;
}
