import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { type Generated, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrations.js';

/*
 * Row types of the tables (internal storage shapes, not API shapes). Both dialects store JSON as text,
 * times as epoch-ms numbers and booleans as integers 0/1, so the same Kysely code runs on both.
 */

export interface InstancesTable {
  id: Generated<number>;
  name: string;
  domain: string;
  created_at: number;
}

export interface UsersTable {
  id: Generated<number>;
  instance_id: number;
  name: string;
  email: string;
  role: string;
  role_id: number | null;
  title: string | null;
  alternate_email: string | null;
  phone: string | null;
  location: string | null;
  timezone: string | null;
  locale: string | null;
  employee_number: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface GroupsTable {
  id: Generated<number>;
  instance_id: number;
  name: string;
  is_default: number;
  active: number;
  creator_id: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface GroupMembersTable {
  group_id: number;
  user_id: number;
  created_at: number;
}

export interface DatasetsTable {
  id: string;
  instance_id: number;
  owner_id: number | null;
  name: string;
  description: string | null;
  /** JSON: the dataset schema ({columns:[{type,name}]}). */
  schema_json: string;
  row_count: number;
  pdp_enabled: number;
  /** CSV data rows without the header line; null until data is imported. */
  csv_data: string | null;
  data_updated_at: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface ClientsTable {
  id: string;
  instance_id: number;
  user_id: number;
  name: string;
  description: string | null;
  /** Space-separated scope names. */
  scopes: string;
  /** scrypt$N$r$p$salt$hash (base64url parts). */
  secret_hash: string;
  created_at: number;
}

export interface AccessTokensTable {
  /** SHA-256 (hex) of the opaque token; the token itself is never stored. */
  token_hash: string;
  jti: string;
  client_id: string;
  instance_id: number;
  user_id: number;
  scopes: string;
  expires_at: number;
  created_at: number;
}

export interface ChannelsTable {
  id: string;
  instance_id: number;
  parent_id: string | null;
  title: string;
  visibility: string;
  creator_id: number;
  created_at: number;
}

export interface ChannelMembersTable {
  channel_id: string;
  user_id: number;
  joined_at: number;
}

export interface MessagesTable {
  id: string;
  instance_id: number;
  channel_id: string;
  author_user_id: number | null;
  integration_id: string | null;
  author_name: string;
  text: string;
  created_at: number;
}

export interface IntegrationsTable {
  id: string;
  instance_id: number;
  owner_id: number;
  name: string;
  description: string | null;
  scope: string;
  /** JSON array of channel ids (scope CHANNEL_LIST) or null. */
  channel_ids: string | null;
  /** JSON array of {name, value}. */
  headers: string;
  /** Standard Webhooks secret (whsec_…) when signing is enabled. */
  signing_secret: string | null;
  created_at: number;
}

export interface SubscriptionsTable {
  id: string;
  instance_id: number;
  integration_id: string;
  event_type: string;
  url: string;
  slash_command: string | null;
  /** Set by the dispatcher on 410 Gone; a disabled subscription gets no new events. */
  disabled_at: number | null;
  created_at: number;
}

export interface CallbackTokensTable {
  /** SHA-256 (hex) of the x-chat-bot-token value. */
  token_hash: string;
  instance_id: number;
  integration_id: string;
  channel_id: string;
  expires_at: number;
  created_at: number;
}

/** The outbox: one row per (event, subscription); read and updated by the dispatcher. */
export interface EventDeliveriesTable {
  /** uuid; also the `webhook-id` header, stable across retries. */
  id: string;
  instance_id: number;
  integration_id: string;
  subscription_id: string;
  event_type: string;
  url: string;
  /** JSON payload, valid against the spec's webhook schema. */
  payload: string;
  /** JSON array of {name, value}: the integration's configured headers, snapshotted. */
  headers: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: number;
  locked_until: number | null;
  locked_by: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export interface Database {
  instances: InstancesTable;
  users: UsersTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  datasets: DatasetsTable;
  clients: ClientsTable;
  access_tokens: AccessTokensTable;
  channels: ChannelsTable;
  channel_members: ChannelMembersTable;
  messages: MessagesTable;
  integrations: IntegrationsTable;
  subscriptions: SubscriptionsTable;
  callback_tokens: CallbackTokensTable;
  event_deliveries: EventDeliveriesTable;
}

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

export interface DatabaseConfig {
  dataDir: string;
  databaseUrl: string | undefined;
  databaseSchema?: string | undefined;
}

const PG_INT8 = 20;

/**
 * Opens the database (PostgreSQL when databaseUrl is set, else `<dataDir>/platform.sqlite` in WAL mode)
 * and runs the migrations.
 */
export async function createDatabase(config: DatabaseConfig): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    const schema = config.databaseSchema;
    if (schema) {
      // The schema must exist before connections use it as their search_path.
      const setup = new pg.Client({ connectionString: config.databaseUrl });
      await setup.connect();
      try {
        await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      } finally {
        await setup.end();
      }
    }
    const pool = new pg.Pool({
      connectionString: config.databaseUrl,
      max: 10,
      ...(schema ? { options: `-c search_path="${schema}"` } : {}),
      // Epoch-ms times are bigint columns: read them as JS numbers (safe up to year 285616).
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === PG_INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as never,
      },
    });
    // An idle client losing its connection must not crash the process.
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    try {
      await migrateToLatest(db, 'postgres', schema);
    } catch (error) {
      await db.destroy();
      throw error;
    }
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }

  mkdirSync(config.dataDir, { recursive: true });
  const file = new SQLite(join(config.dataDir, 'platform.sqlite'));
  file.pragma('journal_mode = WAL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  file.pragma('synchronous = NORMAL');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
  try {
    await migrateToLatest(db, 'sqlite');
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/** A unique-index violation, as better-sqlite3 and pg report it. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}
