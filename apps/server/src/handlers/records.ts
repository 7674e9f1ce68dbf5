import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { foundOr404 } from './common.js';
import { type HandlerContext, requireAuth } from './types.js';

/*
 * Records that are deleted softly (groups, datasets): a deleted one keeps its id and name, answers GET
 * with them and `deleted: true`, and is 404 to every other operation.
 */

/** The timestamps of a record created `now`: created and updated then, not deleted. */
export const newRecordTimes = (now: number) => ({ created_at: now, updated_at: now, deleted_at: null });

/** Looks a record that may be deleted (groups, datasets) up in an instance: only a live one when asked. */
export type FindRecord<Id, R> = (
  db: Kysely<Database>,
  instanceId: number,
  id: Id,
  options: { live: boolean },
) => Promise<R | undefined>;

/** The live record the path's `id` names (a group, a dataset), or 404. */
export function liveRecordOr404<Id extends string | number, R>(
  ctx: HandlerContext & { params: { id: Id } },
  what: string,
  find: FindRecord<Id, R>,
): Promise<R> {
  const auth = requireAuth(ctx);
  return foundOr404(
    find(ctx.services.db, auth.instanceId, ctx.params.id, { live: true }),
    what,
    ctx.params.id,
  );
}

/**
 * The GET of a record that may be deleted: its representation, or only its id, name and `deleted: true`
 * once deleted; 404 when the instance has no such record.
 */
export function getRecord<
  Id extends string | number,
  R extends { id: Id; name: string; deleted_at: number | null },
  B,
>(what: string, find: FindRecord<Id, R>, body: (db: Kysely<Database>, row: R) => Promise<B>) {
  return async (ctx: HandlerContext & { params: { id: Id } }) => {
    const auth = requireAuth(ctx);
    const { db } = ctx.services;
    const row = await foundOr404(
      find(db, auth.instanceId, ctx.params.id, { live: false }),
      what,
      ctx.params.id,
    );
    if (row.deleted_at !== null) return { body: { id: row.id, name: row.name, deleted: true as const } };
    return { body: await body(db, row) };
  };
}
