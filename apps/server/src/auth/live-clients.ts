import type { DatabaseHandle } from '../db/database.js';

/*
 * Which API clients exist, cached per process, so that checking a token for revocation (its client deleted)
 * costs no database round trip in the common case and is still correct across processes and instances:
 * - PostgreSQL: deleting a client sends NOTIFY in its transaction (see deleteClient); every instance LISTENs
 *   and forgets that client when the delete commits. While the listening connection is down, notifications
 *   may be missed, so the cache is bypassed until it is back (and emptied then).
 * - SQLite: `PRAGMA data_version` moves when another process (the CLI) commits; the cache is emptied then.
 */

export const CLIENT_REVOKED_CHANNEL = 'platform_client_revoked';

export interface LiveClient {
  instanceId: number;
  instanceName: string;
  userId: number;
}

/** Bounds the cache; past it, the cache starts afresh (misses are one indexed query each). */
const MAX_CACHED = 50_000;

/**
 * SQLite: how long (ms, monotonic) a reading of `PRAGMA data_version` stands. Read on every request it cost
 * as much as the user lookup itself (a tenth of a `GET /v1/users/{id}`); once a millisecond, a deletion by
 * another process is seen within a millisecond of its commit, far sooner than that process can return.
 */
const CHANGE_CHECK_MS = 1;

export class LiveClients {
  private readonly cache = new Map<string, LiveClient | null>();
  /** PostgreSQL: whether notifications are being received (the cache may be trusted). */
  private listening: boolean;
  /** Moves on every revocation or reset: a lookup that overlapped one must not cache what it read. */
  private epoch = 0;
  /** performance.now() of the last look at changedElsewhere (not the app's clock: tests stop that one). */
  private checkedAt = Number.NEGATIVE_INFINITY;

  private constructor(private readonly database: DatabaseHandle) {
    this.listening = database.changes.listen === undefined;
  }

  /** Starts listening for revocations (PostgreSQL); resolves once the first attempt to listen is done. */
  static async start(database: DatabaseHandle): Promise<LiveClients> {
    const clients = new LiveClients(database);
    await database.changes.listen?.(
      CLIENT_REVOKED_CHANNEL,
      (clientId) => {
        clients.epoch++;
        clients.cache.delete(clientId);
      },
      (listening) => {
        clients.epoch++;
        clients.cache.clear();
        clients.listening = listening;
      },
    );
    return clients;
  }

  /** The client, or undefined when it does not exist (deleted: its tokens are revoked). */
  async find(clientId: string): Promise<LiveClient | undefined> {
    const changedElsewhere = this.database.changes.changedElsewhere;
    if (changedElsewhere) {
      const now = performance.now();
      if (now - this.checkedAt >= CHANGE_CHECK_MS) {
        this.checkedAt = now;
        if (changedElsewhere.call(this.database.changes)) this.cache.clear();
      }
    }
    if (this.listening) {
      const cached = this.cache.get(clientId);
      if (cached !== undefined) return cached ?? undefined;
    }
    const epoch = this.epoch;
    const row = await this.database.db
      .selectFrom('clients')
      .innerJoin('instances', 'instances.id', 'clients.instance_id')
      .select(['clients.instance_id', 'instances.name as instance_name', 'clients.user_id'])
      .where('clients.id', '=', clientId)
      .executeTakeFirst();
    const client = row
      ? { instanceId: row.instance_id, instanceName: row.instance_name, userId: row.user_id }
      : null;
    if (this.listening && epoch === this.epoch) {
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(clientId, client);
    }
    return client ?? undefined;
  }
}
