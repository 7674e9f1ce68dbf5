import type { Kysely, Selectable } from 'kysely';
import { compiledQuery } from '../db/compiled-query.js';
import type { Database, UsersTable } from '../db/database.js';
import {
  compact,
  conflict,
  findLiveUser,
  iso,
  isStorableId,
  locationOf,
  notFoundProblem,
  paging,
  toBoolean,
} from './common.js';
import { type HandlerMap, requireAuth, type Schemas } from './types.js';

type UserRow = Selectable<UsersTable>;

/**
 * employeeNumber arrives as an integer or a string of up to 18 digits (EmployeeNumberInput, validated by the
 * spec) and is stored as its digits, so that every value the spec allows comes back exactly.
 */
function employeeNumberDigits(value: number | string | undefined): string | undefined {
  return value === undefined ? undefined : BigInt(value).toString();
}

/** Stored digits → the integer responses carry: a number, or a bigint beyond 2^53 (written exactly). */
function employeeNumberOf(digits: string | null): number | undefined {
  if (digits === null) return undefined;
  const n = Number(digits);
  // The response serializer writes a bigint as its digits; the generated type only knows `number`.
  return Number.isSafeInteger(n) ? n : (BigInt(digits) as unknown as number);
}

const selectGroupsOf = compiledQuery((db: Kysely<Database>, userId: number) =>
  db
    .selectFrom('group_members')
    .innerJoin('groups', 'groups.id', 'group_members.group_id')
    .select(['groups.id', 'groups.name'])
    .where('group_members.user_id', '=', userId)
    .where('groups.deleted_at', 'is', null)
    .orderBy('groups.id'),
);

async function groupsOf(db: Kysely<Database>, userId: number) {
  return (await selectGroupsOf(db, userId)).rows;
}

/** getUser's read, on every call: compiled once. */
const selectUser = compiledQuery((db: Kysely<Database>, id: number, instanceId: number) =>
  db.selectFrom('users').selectAll().where('id', '=', id).where('instance_id', '=', instanceId),
);

/** The User representation. */
async function userBody(db: Kysely<Database>, row: UserRow): Promise<Schemas['User']> {
  return compact({
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role as Schemas['UserRole'],
    title: row.title,
    alternateEmail: row.alternate_email,
    phone: row.phone,
    location: row.location,
    timezone: row.timezone,
    locale: row.locale,
    employeeNumber: employeeNumberOf(row.employee_number),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    groups: await groupsOf(db, row.id),
  });
}

/** A live user of the instance with this e-mail (case-insensitive), other than `exceptId`. */
const selectEmailHolder = compiledQuery(
  (db: Kysely<Database>, instanceId: number, lowerCaseEmail: string, exceptId: number) =>
    db
      .selectFrom('users')
      .select('id')
      .where('instance_id', '=', instanceId)
      .where('deleted_at', 'is', null)
      .where((eb) => eb(eb.fn('lower', ['email']), '=', lowerCaseEmail))
      .where('id', '!=', exceptId)
      .limit(1),
);

async function emailTaken(db: Kysely<Database>, instanceId: number, email: string, exceptId = 0) {
  // Ids start at 1: 0 excludes nobody.
  return (await selectEmailHolder(db, instanceId, email.toLowerCase(), exceptId)).rows.length > 0;
}

const selectUserPage = compiledQuery(
  (db: Kysely<Database>, instanceId: number, limit: number, offset: number) =>
    db
      .selectFrom('users')
      .select(['id', 'name', 'email', 'role', 'title', 'phone'])
      .where('instance_id', '=', instanceId)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .limit(limit)
      .offset(offset),
);

/** The instance's default groups, which a new user joins. */
const selectDefaultGroups = compiledQuery((db: Kysely<Database>, instanceId: number) =>
  db
    .selectFrom('groups')
    .select('id')
    .where('instance_id', '=', instanceId)
    .where('is_default', '=', 1)
    .where('deleted_at', 'is', null),
);

export const userHandlers = {
  async listUsers(ctx) {
    const auth = requireAuth(ctx);
    const { limit, offset } = paging(ctx.query);
    const { rows } = await selectUserPage(ctx.services.db, auth.instanceId, limit, offset);
    return { body: rows.map((row) => compact({ ...row, role: row.role as Schemas['UserRole'] })) };
  },

  async createUser(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock, logger } = ctx.services;
    const body = ctx.body;
    if (await emailTaken(db, auth.instanceId, body.email)) {
      throw conflict(`A user with e-mail ${body.email} already exists.`);
    }
    const now = clock.now();
    const row = await db.transaction().execute(async (trx) => {
      const created = await trx
        .insertInto('users')
        .values({
          instance_id: auth.instanceId,
          name: body.name,
          email: body.email,
          role: body.role,
          role_id: null,
          title: body.title ?? null,
          alternate_email: body.alternateEmail ?? null,
          phone: body.phone ?? null,
          location: body.location ?? null,
          timezone: body.timezone ?? null,
          locale: body.locale ?? null,
          employee_number: employeeNumberDigits(body.employeeNumber) ?? null,
          created_at: now,
          updated_at: now,
          deleted_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      // New users join the instance's default groups.
      const defaults = (await selectDefaultGroups(trx, auth.instanceId)).rows;
      if (defaults.length > 0) {
        await trx
          .insertInto('group_members')
          .values(defaults.map((g) => ({ group_id: g.id, user_id: created.id, created_at: now })))
          .execute();
      }
      return created;
    });
    if (toBoolean(ctx.query.sendInvite)) {
      // No mail transport in the reference server: the invitation is recorded in the log only.
      logger.info({ userId: row.id }, 'invitation requested for new user (no mail transport configured)');
    }
    // Create never returns timezone and locale (the description says so; CreatedUser forbids them).
    const { timezone: _timezone, locale: _locale, ...created } = await userBody(db, row);
    return { body: created, headers: locationOf(`/v1/users/${row.id}`) };
  },

  async getUser(ctx) {
    const auth = requireAuth(ctx);
    const id: number = ctx.params.id;
    const row = isStorableId(id)
      ? (await selectUser(ctx.services.db, id, auth.instanceId)).rows[0]
      : undefined;
    if (!row) throw notFoundProblem('user', id);
    if (row.deleted_at !== null) {
      return {
        body: compact({
          id: row.id,
          name: row.name,
          email: row.email,
          role: row.role as Schemas['UserRole'],
          title: row.title,
          createdAt: iso(row.created_at),
          updatedAt: iso(row.deleted_at),
          deleted: true as const,
        }),
      };
    }
    return { body: await userBody(ctx.services.db, row) };
  },

  async updateUser(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock } = ctx.services;
    const id: number = ctx.params.id;
    const row = isStorableId(id) ? await findLiveUser(db, auth.instanceId, id) : undefined;
    if (!row) throw notFoundProblem('user', id);
    const body = ctx.body;
    if (body.email !== undefined && (await emailTaken(db, auth.instanceId, body.email, id))) {
      throw conflict(`A user with e-mail ${body.email} already exists.`);
    }
    const changes: Partial<UserRow> = {};
    // A field left out keeps its value.
    if (body.name !== undefined) changes.name = body.name;
    if (body.email !== undefined) changes.email = body.email;
    if (body.role !== undefined) changes.role = body.role;
    if (body.roleId !== undefined) changes.role_id = body.roleId;
    if (body.title !== undefined) changes.title = body.title;
    if (body.alternateEmail !== undefined) changes.alternate_email = body.alternateEmail;
    if (body.phone !== undefined) changes.phone = body.phone;
    if (body.location !== undefined) changes.location = body.location;
    if (body.timezone !== undefined) changes.timezone = body.timezone;
    if (body.locale !== undefined) changes.locale = body.locale;
    const employee = employeeNumberDigits(body.employeeNumber);
    if (employee !== undefined) changes.employee_number = employee;
    if (Object.keys(changes).length > 0) {
      await db
        .updateTable('users')
        .set({ ...changes, updated_at: clock.now() })
        .where('id', '=', id)
        .execute();
    }
    return {};
  },

  async deleteUser(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock } = ctx.services;
    const id: number = ctx.params.id;
    const row = isStorableId(id) ? await findLiveUser(db, auth.instanceId, id) : undefined;
    if (!row) throw notFoundProblem('user', id);
    // A user that API clients act as owns data: deleting it would orphan the clients.
    const ownsClient = await db
      .selectFrom('clients')
      .select('id')
      .where('user_id', '=', id)
      .executeTakeFirst();
    if (ownsClient) {
      throw conflict(`User ${id} owns API clients and cannot be deleted; delete the clients first.`);
    }
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ deleted_at: clock.now() }).where('id', '=', id).execute();
      await trx.deleteFrom('group_members').where('user_id', '=', id).execute();
    });
    return {};
  },
} satisfies Partial<HandlerMap>;
