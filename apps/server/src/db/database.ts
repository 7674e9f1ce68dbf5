import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  type ColumnType,
  type Generated,
  Kysely,
  type LimitNode,
  type OffsetNode,
  PostgresDialect,
  type PostgresPool,
  type SqliteDatabase,
  SqliteDialect,
  SqliteQueryCompiler,
  sql,
} from 'kysely';
import type * as pg from 'pg';
import { registerDirectReader } from './compiled-query.js';
import { migrateToLatest, OUTBOX_CHANNEL } from './migrations.js';

/** The pg module, imported when a PostgreSQL URL is configured. */
type PgModule = typeof import('pg').default;

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
  /** Decimal digits (up to 18): exact where a 64-bit integer read into JavaScript would not be. */
  employee_number: string | null;
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

/** Keys that sign access tokens (JWTs); the newest unretired one signs, every listed one verifies. */
export interface SigningKeysTable {
  /** The JWK `kid`. */
  id: string;
  /** JWS algorithm, e.g. ES256. */
  algorithm: string;
  /** PKCS #8 PEM. */
  private_key: string;
  /** JSON: the public JWK as published at /.well-known/jwks.json. */
  public_jwk: string;
  created_at: number;
  /** Set by `keys rotate`: the key signs no more, and verifies only the tokens it signed until they expire. */
  retired_at: number | null;
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
  /**
   * JSON payload, valid against the spec's webhook schema once the callback token is put in at send time
   * (it is never stored in clear: delivery/callback-tokens.ts).
   */
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
  /** When the row became delivered or failed; the sweeper deletes it a retention period later. */
  finished_at: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface Database {
  instances: InstancesTable;
  users: UsersTable;
  groups: GroupsTable;
  group_members: GroupMembersTable;
  datasets: DatasetsTable;
  clients: ClientsTable;
  signing_keys: SigningKeysTable;
  channels: ChannelsTable;
  channel_members: ChannelMembersTable;
  messages: MessagesTable;
  integrations: IntegrationsTable;
  subscriptions: SubscriptionsTable;
  callback_tokens: CallbackTokensTable;
  event_deliveries: EventDeliveriesTable;
}

export type Dialect = 'sqlite' | 'postgres';

/**
 * Tells a process's caches that other connections changed what they hold (a client deleted by the CLI,
 * by another server instance). PostgreSQL: LISTEN/NOTIFY, sent inside the writing transaction so it is
 * delivered exactly when the change commits. SQLite: `PRAGMA data_version`, which moves whenever another
 * connection (another process) commits; checking it costs no I/O.
 */
export interface ChangeFeed {
  /** Announces a change on `channel` when `trx` commits (no-op on SQLite, where `changedElsewhere` sees it). */
  notify(trx: Kysely<Database>, channel: string, payload: string): Promise<void>;
  /**
   * PostgreSQL: calls `onMessage` for every notification on `channel`, and `onReset(listening)` whenever the
   * listening connection drops (false: notifications may be missed until it is back) or is (re)established
   * (true). Resolves once listening (or after the first failed attempt; it keeps retrying) with a function
   * that stops listening. SQLite: undefined.
   */
  listen?(
    channel: string,
    onMessage: (payload: string) => void,
    onReset: (listening: boolean) => void,
  ): Promise<() => Promise<void>>;
  /** SQLite: whether another connection committed since the previous call. PostgreSQL: undefined. */
  changedElsewhere?(): boolean;
}

/**
 * Tells dispatchers that rows were added to the outbox, whoever added them: the database itself signals it
 * (db/migrations.ts, 0005), so no code path that writes events can forget to. PostgreSQL: a NOTIFY sent by a
 * trigger inside the inserting transaction reaches every process once it commits. SQLite: a temporary
 * trigger calls into this process while the inserting transaction still holds the only connection, so
 * whatever the woken dispatcher queries next runs after the commit.
 */
export interface OutboxSignal {
  /**
   * Calls `onWrite` after each insert into the outbox, and also whenever notifications may have been missed
   * (the PostgreSQL listening connection came back). Resolves with a function that stops.
   */
  subscribe(onWrite: () => void): Promise<() => Promise<void>>;
}

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  changes: ChangeFeed;
  outbox: OutboxSignal;
  close(): Promise<void>;
}

export interface DatabaseConfig {
  dataDir: string;
  databaseUrl: string | undefined;
  databaseSchema?: string | undefined;
  /**
   * Errors of idle pooled PostgreSQL connections (the server restarted, the network dropped): the pool
   * replaces such a connection, so they must not crash the process, but they are worth reporting.
   * Default: a line on stderr.
   */
  onConnectionError?: (error: Error) => void;
}

const PG_INT8 = 20;

/** Listening connections of one PostgreSQL handle: reconnect with backoff, report every drop. */
function postgresListener(pg: PgModule, connection: pg.ClientConfig) {
  const stops = new Set<() => Promise<void>>();
  const listen: NonNullable<ChangeFeed['listen']> = (channel, onMessage, onReset) => {
    let closed = false;
    let client: pg.Client | undefined;
    let retryTimer: NodeJS.Timeout | undefined;
    let delayMs = 100;
    let first: (() => void) | undefined;
    const firstAttempt = new Promise<void>((resolve) => {
      first = resolve;
    });
    const lost = (failed: pg.Client) => {
      if (client !== failed && client !== undefined) return;
      client = undefined;
      void failed.end().catch(() => {});
      if (closed) return;
      onReset(false);
      retryTimer = setTimeout(connect, delayMs);
      retryTimer.unref();
      delayMs = Math.min(delayMs * 2, 5_000);
    };
    const connect = async () => {
      const candidate = new pg.Client(connection);
      candidate.on('error', () => lost(candidate));
      candidate.on('end', () => lost(candidate));
      candidate.on('notification', (message) => {
        if (message.channel === channel) onMessage(message.payload ?? '');
      });
      try {
        await candidate.connect();
        await candidate.query(`LISTEN "${channel}"`);
        if (closed) {
          await candidate.end();
          return;
        }
        client = candidate;
        delayMs = 100;
        onReset(true);
      } catch {
        client = candidate;
        lost(candidate);
      } finally {
        first?.();
        first = undefined;
      }
    };
    const stop = async () => {
      if (closed) return;
      closed = true;
      stops.delete(stop);
      if (retryTimer) clearTimeout(retryTimer);
      await client?.end().catch(() => {});
    };
    stops.add(stop);
    void connect();
    return firstAttempt.then(() => stop);
  };
  return { listen, close: () => Promise.all([...stops].map((stop) => stop())).then(() => {}) };
}

/**
 * Opens the database (PostgreSQL when databaseUrl is set, else `<dataDir>/platform.sqlite` in WAL mode)
 * and runs the migrations.
 */
export async function createDatabase(config: DatabaseConfig): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    // Loaded only here: a SQLite server does not pay for the driver's start-up.
    const { default: pg } = await import('pg');
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
    const connection: pg.ClientConfig = {
      connectionString: config.databaseUrl,
      ...(schema ? { options: `-c search_path="${schema}"` } : {}),
    };
    const pool = new pg.Pool({
      ...connection,
      max: 10,
      // Epoch-ms times are bigint columns: read them as JS numbers (safe up to year 285616).
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === PG_INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as never,
      },
    });
    // An idle client losing its connection must not crash the process (an unhandled 'error' would).
    pool.on('error', (error) => {
      if (config.onConnectionError) config.onConnectionError(error);
      else process.stderr.write(`PostgreSQL: an idle connection failed: ${error.message}\n`);
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool) }) });
    try {
      await migrateToLatest(db, 'postgres', schema);
    } catch (error) {
      await db.destroy();
      throw error;
    }
    const listener = postgresListener(pg, connection);
    return {
      db,
      dialect: 'postgres',
      changes: {
        async notify(trx, channel, payload) {
          await sql`select pg_notify(${channel}, ${payload})`.execute(trx);
        },
        listen: listener.listen,
      },
      outbox: {
        subscribe: (onWrite) =>
          listener.listen(OUTBOX_CHANNEL, onWrite, (listening) => {
            if (listening) onWrite();
          }),
      },
      close: async () => {
        await listener.close();
        await db.destroy();
      },
    };
  }

  mkdirSync(config.dataDir, { recursive: true });
  const file = new SQLite(join(config.dataDir, 'platform.sqlite'));
  file.pragma('journal_mode = WAL');
  file.pragma('busy_timeout = 5000');
  file.pragma('synchronous = NORMAL');
  const statements = withStatementCache(file);
  const db = new Kysely<Database>({ dialect: new PreparedOnceSqliteDialect({ database: statements }) });
  // A compiled read skips Kysely's driver (its connection lock and promise steps): better-sqlite3 runs it
  // synchronously. Not while a transaction is open on the connection (Kysely holds it across awaits):
  // the read would see that transaction's uncommitted writes, so it waits its turn through Kysely.
  registerDirectReader(db, (text, parameters) => {
    if (file.inTransaction) return undefined;
    const statement = statements.prepare(text) as SQLite.Statement;
    return statement.reader ? { rows: statement.all(parameters as unknown[]) } : undefined;
  });
  try {
    await migrateToLatest(db, 'sqlite');
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const outboxListeners = new Set<() => void>();
  file.function(OUTBOX_CHANNEL, { deterministic: false }, () => {
    for (const onWrite of outboxListeners) onWrite();
    return null;
  });
  file.exec(`CREATE TEMP TRIGGER event_deliveries_written AFTER INSERT ON main.event_deliveries
    BEGIN SELECT ${OUTBOX_CHANNEL}(); END`);
  const dataVersionStatement = file.prepare('PRAGMA data_version').pluck();
  let dataVersion = dataVersionStatement.get();
  return {
    db,
    dialect: 'sqlite',
    changes: {
      notify: async () => {},
      changedElsewhere() {
        const now = dataVersionStatement.get();
        if (now === dataVersion) return false;
        dataVersion = now;
        return true;
      },
    },
    outbox: {
      async subscribe(onWrite) {
        // A listener must not touch the database: it runs inside the inserting statement.
        const listener = () => onWrite();
        outboxListeners.add(listener);
        return async () => {
          outboxListeners.delete(listener);
        };
      },
    },
    close: () => db.destroy(),
  };
}

/** Distinct query texts that get a named (server-side prepared) statement; later ones run unnamed. */
const MAX_NAMED_STATEMENTS = 1000;

/**
 * The pool as Kysely's PostgreSQL dialect sees it, with each parameterised query text a named statement:
 * pg then parses and plans it once per connection and afterwards sends only Bind/Execute, where Kysely
 * would have every query parsed anew. Queries without parameters keep the simple protocol (they may hold
 * several statements, as migrations do).
 */
function withNamedStatements(pool: pg.Pool): PostgresPool {
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

/**
 * SQLite recompiles a statement whose LIMIT or OFFSET is a bound parameter each time that parameter is bound
 * (its planner reads the value, so a new one may change the plan), and better-sqlite3 binds on every run:
 * measured on SQLite 3.51, `… where id = ? limit ?` took 5.4–6.9 µs a run against 2.3 µs without the limit,
 * and the e-mail check and every list paid it on each request. Behind a cast the planner does not read the
 * value: the statement is compiled once and the limit still applies.
 */
class PreparedOnceSqliteCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    this.append('limit cast(');
    this.visitNode(node.limit);
    this.append(' as integer)');
  }

  protected override visitOffset(node: OffsetNode): void {
    this.append('offset cast(');
    this.visitNode(node.offset);
    this.append(' as integer)');
  }
}

class PreparedOnceSqliteDialect extends SqliteDialect {
  override createQueryCompiler() {
    return new PreparedOnceSqliteCompiler();
  }
}

/** Past it, the statement cache starts afresh (the server's queries are a few hundred distinct texts). */
const MAX_CACHED_STATEMENTS = 2000;

/**
 * The database as Kysely's SQLite dialect sees it, with each SQL text prepared once: Kysely prepares
 * every query anew, and preparing costs more than running a point query. better-sqlite3 runs statements
 * synchronously (`all`/`run`; Kysely's `stream` is not used here), so one statement is never busy when
 * reused, and SQLite re-prepares a statement by itself when the schema changes.
 */
function withStatementCache(file: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => file.close(),
    prepare(text: string) {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= MAX_CACHED_STATEMENTS) statements.clear();
        statement = file.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/** A unique-index violation, as better-sqlite3 and pg report it. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}
