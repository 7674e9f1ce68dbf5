import { type Kysely, sql } from 'kysely';
import { type Migration, type MigrationProvider, type MigrationResultSet, Migrator } from 'kysely/migration';
import { type Dialect, OUTBOX_CHANNEL } from './schema.js';

/*
 * Schema migrations, in code so the bundle carries them. Append new migrations; never edit an applied one.
 * Portable types only: text, integer, bigint (epoch ms). JSON is text, booleans are integers 0/1.
 */

// biome-ignore lint/suspicious/noExplicitAny: migrations work on the untyped schema.
type AnyDb = Kysely<any>;

function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_initial': { up: (db: AnyDb) => initial(db, dialect) },
    '0002_unique_live_names': { up: (db: AnyDb) => uniqueLiveNames(db) },
    '0003_jwt_access_tokens': { up: (db: AnyDb) => jwtAccessTokens(db) },
    '0004_exact_employee_numbers': { up: (db: AnyDb) => exactEmployeeNumbers(db) },
    '0005_self_waking_outbox': { up: (db: AnyDb) => selfWakingOutbox(db, dialect) },
    '0006_no_stale_planner_statistics': { up: (db: AnyDb) => noStalePlannerStatistics(db, dialect) },
    '0007_delivery_circuit_breaker': { up: (db: AnyDb) => deliveryCircuitBreaker(db) },
    '0008_channel_message_times': { up: (db: AnyDb) => channelMessageTimes(db) },
  };
}

/** Auto-increment integer ids: SQLite's rowid alias vs PostgreSQL serial. */
function idColumnsOf(dialect: Dialect) {
  return {
    serialId: dialect === 'postgres' ? ('serial' as const) : ('integer' as const),
    idColumn: (c: { primaryKey(): { autoIncrement(): unknown } }) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
  };
}

/** The first schema, in three parts. */
async function initial(db: AnyDb, dialect: Dialect): Promise<void> {
  await directoryTables(db, dialect);
  await dataAndClientTables(db);
  await chatTables(db);
  await integrationTables(db);
}

/** Instances, users and groups. */
async function directoryTables(db: AnyDb, dialect: Dialect): Promise<void> {
  const { serialId, idColumn } = idColumnsOf(dialect);
  await db.schema
    .createTable('instances')
    .addColumn('id', serialId, (c) => idColumn(c) as never)
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', serialId, (c) => idColumn(c) as never)
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('role_id', 'bigint')
    .addColumn('title', 'text')
    .addColumn('alternate_email', 'text')
    .addColumn('phone', 'text')
    .addColumn('location', 'text')
    .addColumn('timezone', 'text')
    .addColumn('locale', 'text')
    .addColumn('employee_number', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema.createIndex('users_instance_idx').on('users').columns(['instance_id', 'id']).execute();

  await db.schema
    .createTable('groups')
    .addColumn('id', serialId, (c) => idColumn(c) as never)
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('creator_id', 'integer')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema.createIndex('groups_instance_idx').on('groups').columns(['instance_id', 'id']).execute();

  await db.schema
    .createTable('group_members')
    .addColumn('group_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('group_members_pk', ['group_id', 'user_id'])
    .execute();
  await db.schema.createIndex('group_members_user_idx').on('group_members').column('user_id').execute();
}

/** Datasets, API clients and their (since removed) access tokens. */
async function dataAndClientTables(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('datasets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('owner_id', 'integer')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('schema_json', 'text', (c) => c.notNull())
    .addColumn('row_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pdp_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('csv_data', 'text')
    .addColumn('data_updated_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('datasets_instance_idx')
    .on('datasets')
    .columns(['instance_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('access_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('jti', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('access_tokens_client_idx').on('access_tokens').column('client_id').execute();
  await db.schema.createIndex('access_tokens_expiry_idx').on('access_tokens').column('expires_at').execute();
}

/** Chat: channels, their members, messages. */
async function chatTables(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('channels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('parent_id', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('creator_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('channels_instance_idx')
    .on('channels')
    .columns(['instance_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('channel_members')
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('joined_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('channel_members_pk', ['channel_id', 'user_id'])
    .execute();
  await db.schema.createIndex('channel_members_user_idx').on('channel_members').column('user_id').execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('author_user_id', 'integer')
    .addColumn('integration_id', 'text')
    .addColumn('author_name', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('messages_channel_idx')
    .on('messages')
    .columns(['channel_id', 'created_at'])
    .execute();
}

/** Integrations, their subscriptions and callback tokens, the outbox. */
async function integrationTables(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('integrations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('channel_ids', 'text')
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('signing_secret', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('integrations_instance_idx').on('integrations').column('instance_id').execute();

  await db.schema
    .createTable('subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('integration_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('slash_command', 'text')
    .addColumn('disabled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('subscriptions_integration_idx')
    .on('subscriptions')
    .column('integration_id')
    .execute();

  await db.schema
    .createTable('callback_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('integration_id', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('event_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('integration_id', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint')
    .addColumn('locked_by', 'text')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('event_deliveries_due_idx')
    .on('event_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('event_deliveries_subscription_idx')
    .on('event_deliveries')
    .column('subscription_id')
    .execute();
}

// The indexes close the race between two concurrent requests (the loser gets a 409, see
// isUniqueViolation); the user handlers rely on the e-mail index alone (handlers/users.ts).
// Deleted rows keep their values without blocking reuse.
async function uniqueLiveNames(db: AnyDb): Promise<void> {
  await sql`CREATE UNIQUE INDEX users_live_email_unique ON users (instance_id, lower(email)) WHERE deleted_at IS NULL`.execute(
    db,
  );
  await sql`CREATE UNIQUE INDEX groups_live_name_unique ON groups (instance_id, lower(name)) WHERE deleted_at IS NULL`.execute(
    db,
  );
}

// Access tokens become signed JWTs (src/auth/tokens.ts): nothing is stored per token any more, and
// the keys that sign them live here. Tokens issued as opaque strings before this stop working.
async function jwtAccessTokens(db: AnyDb): Promise<void> {
  await db.schema.dropTable('access_tokens').execute();
  await db.schema
    .createTable('signing_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('retired_at', 'bigint')
    .execute();
}

// Employee numbers up to 18 digits must come back exactly; JavaScript reads a 64-bit integer column
// as a double (better-sqlite3, and pg through our int8 parser below 2^53). Digits as text are exact.
async function exactEmployeeNumbers(db: AnyDb): Promise<void> {
  await db.schema.alterTable('users').addColumn('employee_number_digits', 'text').execute();
  await sql`UPDATE users SET employee_number_digits = CAST(employee_number AS TEXT)`.execute(db);
  await db.schema.alterTable('users').dropColumn('employee_number').execute();
  await db.schema.alterTable('users').renameColumn('employee_number_digits', 'employee_number').execute();
}

// Finished deliveries are kept for a retention period counted from when they finished (the sweeper,
// delivery/sweeper.ts). PostgreSQL: every insert into the outbox notifies the dispatchers of every
// instance from inside the inserting transaction (delivered on commit, dropped on rollback), so no
// code path that writes events can forget to wake them. SQLite does the same in-process with a
// temporary trigger made when the database is opened (db/database.ts).
async function selfWakingOutbox(db: AnyDb, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('event_deliveries').addColumn('finished_at', 'bigint').execute();
  await sql`UPDATE event_deliveries SET finished_at = coalesce(delivered_at, next_attempt_at) WHERE status <> 'pending'`.execute(
    db,
  );
  await db.schema
    .createIndex('event_deliveries_finished_idx')
    .on('event_deliveries')
    .column('finished_at')
    .execute();
  await db.schema
    .createIndex('callback_tokens_expiry_idx')
    .on('callback_tokens')
    .column('expires_at')
    .execute();
  if (dialect !== 'postgres') return;
  await sql`CREATE FUNCTION outbox_written() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify(${sql.lit(OUTBOX_CHANNEL)}, '');
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER event_deliveries_written AFTER INSERT ON event_deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_written()`.execute(db);
}

// SQLite: every start used to run `PRAGMA optimize`, which analyses small tables — on a new install,
// all of them. The statistics then said "users has 2 rows, messages 1" long after there were 30,000:
// the planner scanned tables instead of using their primary keys (5 ms a message posted, event
// delivery six times slower). No statistics: the planner's defaults pick the indexes,
// which is what these point lookups need. `ANALYZE sqlite_schema` makes it forget the old ones.
async function noStalePlannerStatistics(db: AnyDb, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') return;
  const tables = await sql<{ name: string }>`SELECT name FROM sqlite_master
    WHERE type = 'table' AND name IN ('sqlite_stat1', 'sqlite_stat4')`.execute(db);
  for (const { name } of tables.rows) await sql`DELETE FROM ${sql.table(name)}`.execute(db);
  await sql`ANALYZE sqlite_schema`.execute(db);
}

// Each subscription's circuit breaker (delivery/breaker.ts), kept in the database so that every
// instance sharing it sees the same state: consecutive failed attempts, and until when no attempt
// goes out (open; a past time with the threshold reached is half-open: one probe may go).
async function deliveryCircuitBreaker(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable('subscriptions')
    .addColumn('breaker_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('subscriptions').addColumn('breaker_open_until', 'bigint').execute();
}

// A message's time is taken from its channel's row here when it is written, not read from the
// messages before: messages written together (one turn's shared write, two instances at once) each
// get their own, in order. The row is locked by the writing statement until it commits.
async function channelMessageTimes(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('channel_message_times')
    .addColumn('channel_id', 'text', (c) => c.primaryKey())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO channel_message_times (channel_id, last_at)
    SELECT channel_id, max(created_at) FROM messages GROUP BY channel_id`.execute(db);
}

/**
 * `schema` (PostgreSQL): where the migration bookkeeping tables live. Always explicit, because Kysely
 * otherwise looks for them in every schema of the database and may find another schema's.
 */
export async function migrateToLatest(db: AnyDb, dialect: Dialect, schema?: string): Promise<void> {
  const migrator = migratorFor(db, dialect, schema);
  throwIfFailed(await migrator.migrateToLatest());
}

/** Migrates up to and including `last` only: an earlier version's database, for tests of later migrations. */
export async function migrateUpTo(db: AnyDb, dialect: Dialect, last: string): Promise<void> {
  throwIfFailed(await migratorFor(db, dialect).migrateTo(last));
}

function migratorFor(db: AnyDb, dialect: Dialect, schema?: string): Migrator {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  return new Migrator({
    db,
    provider,
    ...(dialect === 'postgres' ? { migrationTableSchema: schema ?? 'public' } : {}),
  });
}

function throwIfFailed({ error, results }: MigrationResultSet): void {
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(
      `database migration ${failed ?? ''} failed: ${(error as Error).message ?? String(error)}`,
      { cause: error },
    );
  }
}
