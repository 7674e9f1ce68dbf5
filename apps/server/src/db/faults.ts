import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './schema.js';

/*
 * Storage faults: the database is unreachable (PostgreSQL restarting, the network gone) or refuses writes
 * (a full disk, a read-only file system, an I/O error). They are no fault of the request and no bug of
 * ours: the client is told to come back (503 + Retry-After, errors.ts), readiness turns 503 until the
 * database takes a write again, and the log names the real cause once per episode, not once per request.
 */

/** What a 503 for a storage fault tells clients to wait: about what a PostgreSQL restart takes. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

export type StorageFaultKind = 'unreachable' | 'refuses-writes';

export interface StorageFault {
  kind: StorageFaultKind;
  /** The driver's code (`SQLITE_FULL`, `ECONNREFUSED`, `57P01`) or undefined when only the message told. */
  code: string | undefined;
  /** The driver's own words: what the log names as the cause. */
  cause: string;
}

/** SQLite result codes (better-sqlite3 `code`, extended codes start with the primary one). */
const SQLITE_REFUSES_WRITES = ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_NOLFS'];
const SQLITE_UNREACHABLE = ['SQLITE_CANTOPEN', 'SQLITE_BUSY', 'SQLITE_PROTOCOL'];

/** PostgreSQL SQLSTATEs: 53100 disk full, 25006 read-only transaction, class 58 system (I/O) errors. */
const PG_REFUSES_WRITES = /^(53100|25006|58\w{3})$/;
/** Class 08 connection exceptions, 57P01–57P03 shutdown/crash/starting up, 53300 too many connections. */
const PG_UNREACHABLE = /^(08\w{3}|57P0[123]|53300)$/;

/** Errors of the socket under a pg connection. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What pg says, without a code, about a connection it lost or could not get in time. */
const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;

/** The storage fault an error is, or undefined when it is something else (a bug, a constraint). */
export function storageFault(error: unknown): StorageFault | undefined {
  if (!(error instanceof Error)) return undefined;
  const raw = (error as Error & { code?: unknown }).code;
  const code = typeof raw === 'string' ? raw : '';
  const fault = (kind: StorageFaultKind): StorageFault => ({
    kind,
    code: code || undefined,
    cause: error.message || code,
  });
  if (code.startsWith('SQLITE_')) {
    if (SQLITE_REFUSES_WRITES.some((prefix) => code.startsWith(prefix))) return fault('refuses-writes');
    if (SQLITE_UNREACHABLE.some((prefix) => code.startsWith(prefix))) return fault('unreachable');
    return undefined;
  }
  if (PG_REFUSES_WRITES.test(code)) return fault('refuses-writes');
  if (PG_UNREACHABLE.test(code) || NETWORK_CODES.has(code)) return fault('unreachable');
  if (PG_CONNECTION_MESSAGES.test(error.message)) return fault('unreachable');
  // Node's connect() to several addresses (localhost: ::1 and 127.0.0.1) fails with an AggregateError.
  if (error instanceof AggregateError) return error.errors.map(storageFault).find(Boolean);
  return undefined;
}

/**
 * Whether the database works, as the process has seen it: an episode starts at the first fault and ends
 * when the database takes a write again (a write request that succeeded, or the readiness probe's write).
 */
export class StorageHealth {
  private episode: { fault: StorageFault; since: number } | undefined;
  /**
   * The episode that ended less than `settleMs` ago: a database going down serves a few more queries
   * (PostgreSQL ends its sessions one by one), and a fault that follows so soon resumes it silently.
   * Its "works again" line waits until the database has kept working that long.
   */
  private settling: { fault: StorageFault; since: number; timer: NodeJS.Timeout } | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly settleMs = 2_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The fault of the current episode, if there is one. */
  get fault(): StorageFault | undefined {
    return this.episode?.fault;
  }

  /** Records a fault; the first of an episode is logged with its cause. */
  failed(fault: StorageFault): void {
    if (!this.episode && this.settling?.fault.kind === fault.kind) {
      clearTimeout(this.settling.timer);
      this.episode = { fault: this.settling.fault, since: this.settling.since };
      this.settling = undefined;
      return;
    }
    if (this.episode) {
      // An unreachable database that comes back refusing writes is a new cause worth a line.
      if (this.episode.fault.kind === fault.kind) return;
      this.episode.fault = fault;
    } else {
      this.episode = { fault, since: this.now() };
    }
    this.logger.error(
      { cause: fault.cause, code: fault.code, fault: fault.kind },
      fault.kind === 'unreachable'
        ? `the database is unreachable (${fault.cause}): answering 503 until it is back`
        : `the database refuses writes (${fault.cause}): writes answer 503 until one succeeds again`,
    );
  }

  /**
   * The database took a write: the episode, if any, is over (503s and readiness follow at once; the log
   * line once it has lasted, above). `startedAt`: when the work that proves it began; work begun before
   * the episode (a request that committed just before the cut and answered just after) proves nothing.
   */
  recovered(startedAt?: number): void {
    if (!this.episode) return;
    if (startedAt !== undefined && startedAt < this.episode.since) return;
    const { fault, since } = this.episode;
    this.episode = undefined;
    const announce = () => {
      this.settling = undefined;
      this.logger.info(
        { cause: fault.cause, downMs: this.now() - since },
        'the database works again: serving normally',
      );
    };
    if (this.settleMs <= 0) {
      announce();
      return;
    }
    const timer = setTimeout(announce, this.settleMs);
    timer.unref();
    this.settling = { fault, since, timer };
  }

  /**
   * Readiness: the database answers a query and, during an episode, takes a write again (without one,
   * a server out of its load balancer for a full disk would never get the write that clears it).
   */
  async check(database: { db: Kysely<Database>; probeWrite(): Promise<void> }): Promise<boolean> {
    try {
      await sql`select 1`.execute(database.db);
      if (this.episode) {
        await database.probeWrite();
        this.recovered();
      }
      return true;
    } catch (error) {
      const fault = storageFault(error);
      if (fault) this.failed(fault);
      else this.logger.error({ err: error }, 'readiness check failed');
      return false;
    }
  }
}
