import type { Kysely, Selectable } from 'kysely';
import type { Schemas } from '../api-types.js';
import { compiledQuery } from '../db/compiled-query.js';
import { isUniqueViolation } from '../db/errors.js';
import { jsonArrayAgg } from '../db/json-aggregate.js';
import type { Database, UsersTable } from '../db/schema.js';
import { newUserRow } from '../user-rows.js';
import {
  compact,
  conflict,
  findLiveUser,
  foundOr404,
  iso,
  isStorableId,
  locationOf,
  paging,
  toBoolean,
} from './common.js';
import { type HandlerMap, requireAuth } from './types.js';

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

/** A user of the instance with its live groups (as JSON text, by id), in one query: getUser's read. */
const selectUser = compiledQuery((db: Kysely<Database>, id: number, instanceId: number) =>
  db
    .selectFrom('users')
    .selectAll('users')
    .select((eb) =>
      eb
        .selectFrom('group_members')
        .innerJoin('groups', 'groups.id', 'group_members.group_id')
        .select((group) =>
          jsonArrayAgg(
            db,
            { id: group.ref('groups.id'), name: group.ref('groups.name') },
            group.ref('groups.id'),
          ).as('groups'),
        )
        .whereRef('group_members.user_id', '=', 'users.id')
        .where('groups.deleted_at', 'is', null)
        .as('groups_json'),
    )
    .where('users.id', '=', id)
    .where('users.instance_id', '=', instanceId),
);

/** A user of the instance, deleted or not, with its live groups; undefined when there is none. */
async function findUser(db: Kysely<Database>, instanceId: number, id: number) {
  return isStorableId(id) ? (await selectUser(db, id, instanceId)).rows[0] : undefined;
}

/** The User representation, with the user's groups (ordered by id). */
function userBody(row: UserRow, groups: Schemas['UserGroupRef'][]): Schemas['User'] {
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
    groups,
  });
}

/**
 * The unique index on live users' e-mails (db/migrations.ts, 0002) is the check: asking first would cost a
 * query per write and still race with a concurrent one.
 */
async function unlessEmailTaken<T>(email: string, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`A user with e-mail ${email} already exists.`);
    throw error;
  }
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

/** The instance's default groups, which a new user joins (by id: they are its groups). */
const selectDefaultGroups = compiledQuery((db: Kysely<Database>, instanceId: number) =>
  db
    .selectFrom('groups')
    .select(['id', 'name'])
    .where('instance_id', '=', instanceId)
    .where('is_default', '=', 1)
    .where('deleted_at', 'is', null)
    .orderBy('id'),
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
    const now = clock.now();
    const { row, groups } = await unlessEmailTaken(
      body.email,
      db.transaction().execute(async (trx) => {
        const created = await trx
          .insertInto('users')
          .values(
            newUserRow(
              {
                instanceId: auth.instanceId,
                name: body.name,
                email: body.email,
                role: body.role,
                title: body.title,
                alternateEmail: body.alternateEmail,
                phone: body.phone,
                location: body.location,
                timezone: body.timezone,
                locale: body.locale,
                employeeNumber: employeeNumberDigits(body.employeeNumber),
              },
              now,
            ),
          )
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
        return { row: created, groups: defaults };
      }),
    );
    if (toBoolean(ctx.query.sendInvite)) {
      // No mail transport in the reference server: the invitation is recorded in the log only.
      logger.info({ userId: row.id }, 'invitation requested for new user (no mail transport configured)');
    }
    // Create never returns timezone and locale (the description says so; CreatedUser forbids them).
    const { timezone: _timezone, locale: _locale, ...created } = userBody(row, groups);
    return { body: created, headers: locationOf(`/v1/users/${row.id}`) };
  },

  async getUser(ctx) {
    const auth = requireAuth(ctx);
    const id: number = ctx.params.id;
    const row = await foundOr404(findUser(ctx.services.db, auth.instanceId, id), 'user', id);
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
    return { body: userBody(row, JSON.parse(row.groups_json ?? '[]')) };
  },

  async updateUser(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock } = ctx.services;
    const id: number = ctx.params.id;
    const row = await foundOr404(findLiveUser(db, auth.instanceId, id), 'user', id);
    const body = ctx.body;
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
      await unlessEmailTaken(
        body.email ?? row.email,
        db
          .updateTable('users')
          .set({ ...changes, updated_at: clock.now() })
          .where('id', '=', id)
          .execute(),
      );
    }
    return {};
  },

  async deleteUser(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock } = ctx.services;
    const id: number = ctx.params.id;
    await foundOr404(findLiveUser(db, auth.instanceId, id), 'user', id);
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
