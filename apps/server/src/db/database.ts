import { accessSync, constants, mkdirSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type * as pg from 'pg';
import { startCheckpointer } from './checkpointer.js';
import { registerDirectReader } from './compiled-query.js';
import { type MessageStore, postgresMessageStore, sqliteMessageStore } from './message-store.js';
import { migrateToLatest } from './migrations.js';
import { type OutboxStore, postgresOutboxStore, sqliteOutboxStore } from './outbox-store.js';
import { createPostgresListener, type Listen } from './postgres-listener.js';
import { withNamedStatements } from './postgres-statements.js';
import { type Database, type Dialect, OUTBOX_CHANNEL } from './schema.js';
import { PreparedOnceSqliteDialect, withStatementCache } from './sqlite-statements.js';

/**
 * Tells a process's caches that other connections changed what they hold (a client deleted by the CLI,
 * by another server instance). PostgreSQL: LISTEN/NOTIFY, sent inside the writing transaction so it is
 * delivered exactly when the change commits. SQLite: `PRAGMA data_version`, which moves whenever another
 * connection (another process) commits; checking it costs no I/O.
 */
export interface ChangeFeed {
  /** Announces a change on `channel` when `trx` commits (no-op on SQLite, where `changedElsewhere` sees it). */
  notify(trx: Kysely<Database>, channel: string, payload: string): Promise<void>;
  /** PostgreSQL: listens for notifications on a channel (postgres-listener.ts). SQLite: undefined. */
  listen?: Listen;
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
  /** Which database runs: for the start-up log line, never to choose what to do (the stores do). */
  engine: Dialect;
  changes: ChangeFeed;
  outbox: OutboxSignal;
  /** Chat messages as they are posted (message-store.ts). */
  messages: MessageStore;
  /** The webhook dispatcher's statements on the outbox (outbox-store.ts). */
  deliveries: OutboxStore;
  /**
   * Rejects, with the driver's error or one like it, when the database would refuse a write: readiness
   * runs it after a storage fault (db/faults.ts) to tell when writes work again.
   */
  probeWrite(): Promise<void>;
  close(): Promise<void>;
}

/** A real write that changes nothing: the row Kysely's migrator keeps, set to its own value. */
const touchMigrationLock = (db: Kysely<Database>) =>
  sql`update kysely_migration_lock set is_locked = is_locked where id = 'migration_lock'`.execute(db);

/**
 * Below this much free space a write of a request is likely to fail although the probe's one-page write
 * fits (SQLite reuses its WAL's space): the SQLite probe says "full" until there is more.
 */
const MIN_FREE_BYTES = 1 << 20;

export interface DatabaseConfig {
  dataDir: string;
  databaseUrl: string | undefined;
  databaseSchema?: string | undefined;
  /**
   * Errors of pooled PostgreSQL connections, idle or in use (the server restarted, the network dropped):
   * the pool replaces such a connection, so they must not crash the process, but they are worth
   * reporting. Default: a line on stderr.
   */
  onConnectionError?: (error: Error) => void;
}

const PG_INT8 = 20;
const CONNECT_TIMEOUT_MS = 10_000;

/** The data directory cannot be created or written (missing parent, read-only file system, permissions). */
export class DataDirectoryError extends Error {
  override name = 'DataDirectoryError';
}

/**
 * Opens the database (PostgreSQL when databaseUrl is set, else `<dataDir>/platform.sqlite` in WAL mode)
 * and runs the migrations.
 */
export function createDatabase(config: DatabaseConfig): Promise<DatabaseHandle> {
  return config.databaseUrl ? openPostgres(config.databaseUrl, config) : openSqlite(config.dataDir);
}

async function openPostgres(databaseUrl: string, config: DatabaseConfig): Promise<DatabaseHandle> {
  const { default: pg } = await import('pg');
  const schema = config.databaseSchema;
  if (schema) {
    // The schema must exist before connections use it as their search_path.
    const setup = new pg.Client({ connectionString: databaseUrl });
    setup.on('error', () => {}); // its failures reject the calls below
    await setup.connect();
    try {
      await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      await setup.end();
    }
  }
  const connection: pg.ClientConfig = {
    connectionString: databaseUrl,
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  };
  const pool = new pg.Pool({
    ...connection,
    max: 10,
    // While the database is unreachable a request must fail (503) rather than wait for a connection
    // for ever: a refused connection fails at once, one that hangs (a dropped network) after this.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Epoch-ms times are bigint columns: read them as JS numbers (safe up to year 285616).
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === PG_INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as never,
    },
  });
  // A connection that fails must not crash the process (an unhandled 'error' would). Every client gets a
  // listener of its own, idle or checked out: a server shutdown (57P01) reaches a connection in use
  // between two queries as an 'error' event too. The pool replaces a failed idle client and re-emits its
  // error, already reported by the client's listener.
  pool.on('connect', (client) =>
    client.on('error', (error) => {
      if (config.onConnectionError) config.onConnectionError(error);
      else process.stderr.write(`PostgreSQL: a connection failed: ${error.message}\n`);
    }),
  );
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool) }) });
  try {
    await migrateToLatest(db, 'postgres', schema);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const listener = createPostgresListener(pg, connection);
  return {
    db,
    engine: 'postgres',
    messages: postgresMessageStore(db),
    deliveries: postgresOutboxStore(db),
    changes: {
      async notify(trx, channel, payload) {
        await sql`select pg_notify(${channel}, ${payload})`.execute(trx);
      },
      listen: listener.listen,
    },
    probeWrite: async () => {
      await touchMigrationLock(db);
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

/** One clear line at start instead of an SQLite error from the middle of a migration. */
export function checkDataDirectory(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw new DataDirectoryError(
      `the data directory ${dataDir} does not exist and cannot be created (${(error as Error).message})`,
    );
  }
  try {
    accessSync(dataDir, constants.R_OK | constants.W_OK);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new DataDirectoryError(
      `the data directory ${dataDir} is not writable (${code === 'EROFS' ? 'read-only file system' : (error as Error).message})`,
    );
  }
}

async function openSqlite(dataDir: string): Promise<DatabaseHandle> {
  checkDataDirectory(dataDir);
  const file = new SQLite(join(dataDir, 'platform.sqlite'));
  file.pragma('journal_mode = WAL');
  file.pragma('busy_timeout = 5000');
  file.pragma('synchronous = NORMAL');
  const checkpointer = startCheckpointer(join(dataDir, 'platform.sqlite'), file);
  const statements = withStatementCache(file);
  const db = new Kysely<Database>({ dialect: new PreparedOnceSqliteDialect({ database: statements }, file) });
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
    await checkpointer.close();
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
    engine: 'sqlite',
    messages: sqliteMessageStore(db),
    deliveries: sqliteOutboxStore(db),
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
    probeWrite: async () => {
      const { bavail, bsize } = await statfs(dataDir);
      if (bavail * bsize < MIN_FREE_BYTES) {
        throw Object.assign(
          new Error(`database or disk is full (${bavail * bsize} bytes free in ${dataDir})`),
          {
            code: 'SQLITE_FULL',
          },
        );
      }
      await touchMigrationLock(db);
    },
    close: async () => {
      await checkpointer.close();
      await db.destroy();
    },
  };
}
