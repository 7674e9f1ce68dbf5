import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { ApiProblem } from '../errors.js';

/** Epoch ms → ISO 8601 UTC, the format of every timestamp in the API. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/** Booleans 0/1 in storage. */
export const flag = (value: boolean): number => (value ? 1 : 0);

/**
 * A QueryBoolean/LenientBoolean value as validated by the spec (true/false or their strings in any of the
 * accepted cases) → boolean. Undefined stays undefined.
 */
export function toBoolean(value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  return String(value).toLowerCase() === 'true';
}

/** T with nullable fields made optional and non-null (what compact() returns). */
export type Compacted<T> = {
  [K in keyof T as null extends T[K] ? never : undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as null extends T[K] ? K : undefined extends T[K] ? K : never]?: Exclude<
    T[K],
    null | undefined
  >;
};

/** Drops null/undefined fields (the API omits fields without a value). */
export function compact<T extends Record<string, unknown>>(value: T): Compacted<T> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== null && v !== undefined) out[key] = v;
  return out as Compacted<T>;
}

/**
 * limit/offset of a list operation: always present, the spec's schema defaults them (Ajv useDefaults). No
 * list can hold more rows than the largest storable id, so a larger offset (the spec allows up to 2^53 − 1)
 * is past the end whatever it is, and is clamped there.
 */
export function paging(query: { limit?: number; offset?: number }): { limit: number; offset: number } {
  if (query.limit === undefined || query.offset === undefined)
    throw new Error('limit/offset were not defaulted by validation');
  return { limit: query.limit, offset: Math.min(query.offset, MAX_STORED_ID) };
}

/** One page of a list query: the operation's limit and offset (see paging). */
export function paged<Q extends { limit(limit: number): Q; offset(offset: number): Q }>(
  query: Q,
  parameters: { limit?: number; offset?: number },
): Q {
  const { limit, offset } = paging(parameters);
  return query.limit(limit).offset(offset);
}

/** The resource's address relative to the server (Location is a uri-reference in the spec). */
export const locationOf = (path: string): Record<string, string> => ({ location: path });

export const notFoundProblem = (what: string, id: string | number) =>
  new ApiProblem(404, `No ${what} with id ${id}.`);

/** What a lookup found, or the 404 its id answers with (a hidden record answers like a missing one). */
export async function foundOr404<T>(
  lookup: Promise<T | undefined>,
  what: string,
  id: string | number,
): Promise<T> {
  const found = await lookup;
  if (found === undefined) throw notFoundProblem(what, id);
  return found;
}

/** Conflicts checked in code (clear message); unique indexes back them up against races (see app.ts). */
export const conflict = (message: string) => new ApiProblem(409, message);

/** A live user of the instance, or undefined (without a query for an id that cannot be stored). */
export async function findLiveUser(db: Kysely<Database>, instanceId: number, userId: number) {
  if (!isStorableId(userId)) return undefined;
  return db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', userId)
    .where('instance_id', '=', instanceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/**
 * The spec's ids are int64, but ids are stored in PostgreSQL `serial` columns (4-byte integers, see
 * db/migrations.ts) and the same range on SQLite: larger ids can never exist, so they answer 404 without
 * asking the database.
 */
export const MAX_STORED_ID = 2 ** 31 - 1;
export function isStorableId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1 && id <= MAX_STORED_ID;
}
