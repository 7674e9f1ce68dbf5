import type * as pg from 'pg';

/** The pg module, imported when a PostgreSQL URL is configured. */
export type PgModule = typeof import('pg').default;

/**
 * Calls `onMessage` for every notification on `channel`, and `onReset(listening)` whenever the listening
 * connection drops (false: notifications may be missed until it is back) or is (re)established (true).
 * Resolves once listening (or after the first failed attempt; it keeps retrying) with a function that
 * stops listening.
 */
export type Listen = (
  channel: string,
  onMessage: (payload: string) => void,
  onReset: (listening: boolean) => void,
) => Promise<() => Promise<void>>;

export interface PostgresListener {
  listen: Listen;
  /** Stops every listening connection. */
  close(): Promise<void>;
}

/** Listening connections of one PostgreSQL handle: reconnect with backoff, report every drop. */
export function createPostgresListener(pg: PgModule, connection: pg.ClientConfig): PostgresListener {
  const stops = new Set<() => Promise<void>>();
  const listen: Listen = (channel, onMessage, onReset) => {
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
