import type { Kysely, Selectable } from 'kysely';
import type { Schemas } from '../api-types.js';
import type { Database, GroupsTable } from '../db/schema.js';
import {
  conflict,
  findLiveUser,
  flag,
  foundOr404,
  isStorableId,
  locationOf,
  paged,
  toBoolean,
} from './common.js';
import { getRecord, liveRecordOr404, newRecordTimes } from './records.js';
import { type HandlerContext, type HandlerMap, requireAuth } from './types.js';

type GroupRow = Selectable<GroupsTable>;

/** Live members per group, in one query for a whole page of groups (absent = 0). */
async function memberCounts(db: Kysely<Database>, groupIds: number[]): Promise<Map<number, number>> {
  if (groupIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('group_members')
    .innerJoin('users', 'users.id', 'group_members.user_id')
    .select((eb) => ['group_members.group_id', eb.fn.countAll<number | string>().as('n')])
    .where('group_members.group_id', 'in', groupIds)
    .where('users.deleted_at', 'is', null)
    .groupBy('group_members.group_id')
    .execute();
  return new Map(rows.map((row) => [row.group_id, Number(row.n)]));
}

async function groupBody(db: Kysely<Database>, row: GroupRow): Promise<Schemas['Group']> {
  const body: Schemas['Group'] = {
    id: row.id,
    name: row.name,
    active: row.active === 1,
    default: row.is_default === 1,
    memberCount: (await memberCounts(db, [row.id])).get(row.id) ?? 0,
  };
  if (row.creator_id !== null) body.creatorId = String(row.creator_id);
  return body;
}

async function findGroup(db: Kysely<Database>, instanceId: number, id: number, options: { live: boolean }) {
  if (!isStorableId(id)) return undefined;
  let query = db.selectFrom('groups').selectAll().where('id', '=', id).where('instance_id', '=', instanceId);
  if (options.live) query = query.where('deleted_at', 'is', null);
  return query.executeTakeFirst();
}

/** The live group and live user a membership operation names; 404 for either missing. */
async function groupAndMemberOr404(ctx: HandlerContext & { params: { id: number; userId: number } }) {
  const auth = requireAuth(ctx);
  const group = await liveRecordOr404(ctx, 'group', findGroup);
  const { userId } = ctx.params;
  const user = await foundOr404(findLiveUser(ctx.services.db, auth.instanceId, userId), 'user', userId);
  return { group, user };
}

async function nameTaken(db: Kysely<Database>, instanceId: number, name: string, exceptId?: number) {
  let query = db
    .selectFrom('groups')
    .select('id')
    .where('instance_id', '=', instanceId)
    .where('deleted_at', 'is', null)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()));
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export const groupHandlers = {
  async listGroups(ctx) {
    const auth = requireAuth(ctx);
    const { db } = ctx.services;
    const live = db
      .selectFrom('groups')
      .selectAll()
      .where('instance_id', '=', auth.instanceId)
      .where('deleted_at', 'is', null);
    const rows = await paged(live.orderBy('id'), ctx.query).execute();
    const counts = await memberCounts(
      db,
      rows.map((row) => row.id),
    );
    const body: Schemas['GroupSummary'][] = rows.map((row) => ({
      id: row.id,
      name: row.name,
      default: row.is_default === 1,
      memberCount: counts.get(row.id) ?? 0,
    }));
    return { body };
  },

  async createGroup(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock } = ctx.services;
    const body = ctx.body;
    if (await nameTaken(db, auth.instanceId, body.name))
      throw conflict(`A group named ${body.name} already exists.`);
    const now = clock.now();
    const row = await db
      .insertInto('groups')
      .values({
        instance_id: auth.instanceId,
        name: body.name,
        is_default: flag(toBoolean(body.default) ?? false),
        active: flag(toBoolean(body.active) ?? true),
        creator_id: auth.userId,
        ...newRecordTimes(now),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { body: await groupBody(db, row), headers: locationOf(`/v1/groups/${row.id}`) };
  },

  getGroup: getRecord('group', findGroup, groupBody),

  async updateGroup(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock } = ctx.services;
    const row = await liveRecordOr404(ctx, 'group', findGroup);
    const body = ctx.body;
    if (body.name !== undefined && (await nameTaken(db, auth.instanceId, body.name, row.id))) {
      throw conflict(`A group named ${body.name} already exists.`);
    }
    const changes: Partial<GroupRow> = {};
    if (body.name !== undefined) changes.name = body.name;
    const active = toBoolean(body.active);
    const isDefault = toBoolean(body.default);
    if (active !== undefined) changes.active = flag(active);
    if (isDefault !== undefined) changes.is_default = flag(isDefault);
    const updated = await db
      .updateTable('groups')
      .set({ ...changes, updated_at: clock.now() })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { body: await groupBody(db, updated) };
  },

  async deleteGroup(ctx) {
    const { db, clock } = ctx.services;
    const row = await liveRecordOr404(ctx, 'group', findGroup);
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('groups').set({ deleted_at: clock.now() }).where('id', '=', row.id).execute();
      await trx.deleteFrom('group_members').where('group_id', '=', row.id).execute();
    });
    return {};
  },

  async listGroupUsers(ctx) {
    const { db } = ctx.services;
    const row = await liveRecordOr404(ctx, 'group', findGroup);
    const liveMembers = db
      .selectFrom('group_members')
      .innerJoin('users', 'users.id', 'group_members.user_id')
      .select('users.id')
      .where('group_members.group_id', '=', row.id)
      .where('users.deleted_at', 'is', null);
    const members = await paged(liveMembers.orderBy('users.id'), ctx.query).execute();
    return { body: members.map((m) => m.id) };
  },

  async addGroupUser(ctx) {
    const { db, clock } = ctx.services;
    const { group, user } = await groupAndMemberOr404(ctx);
    // Adding a member twice is not an error (PUT is idempotent), concurrent requests included.
    await db
      .insertInto('group_members')
      .values({ group_id: group.id, user_id: user.id, created_at: clock.now() })
      .onConflict((conflict) => conflict.columns(['group_id', 'user_id']).doNothing())
      .execute();
    return {};
  },

  async removeGroupUser(ctx) {
    const { db } = ctx.services;
    const { group, user } = await groupAndMemberOr404(ctx);
    await db
      .deleteFrom('group_members')
      .where('group_id', '=', group.id)
      .where('user_id', '=', user.id)
      .execute();
    return {};
  },
} satisfies Partial<HandlerMap>;
