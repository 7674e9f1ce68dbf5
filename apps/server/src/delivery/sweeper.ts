// The sweeper: deletes what has served its purpose, so the database does not grow with traffic.
// - Outbox rows that finished (delivered or failed) longer ago than the retention period, payloads included:
//   until then they answer "was this event delivered, and how did it fail" (docs/delivery.md).
// - Callback tokens past their expiry: they authenticate nothing any more.
// Every instance runs one; two sweeping at once delete the same rows, which is harmless.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';

export interface SweepResult {
  deliveries: number;
  callbackTokens: number;
}

/** Rows deleted per statement: keeps each delete's locks and transaction short on a large backlog. */
const SWEEP_BATCH = 1000;

/** One sweep: deletes everything that expired as of `now`; returns how many rows went. */
export async function sweepExpired(
  db: Kysely<Database>,
  now: number,
  retentionMs: number,
): Promise<SweepResult> {
  const result: SweepResult = { deliveries: 0, callbackTokens: 0 };
  for (;;) {
    const batch = db
      .selectFrom('event_deliveries')
      .select('id')
      .where('status', '<>', 'pending')
      .where('finished_at', '<=', now - retentionMs)
      .limit(SWEEP_BATCH);
    const deleted = await db.deleteFrom('event_deliveries').where('id', 'in', batch).executeTakeFirst();
    const count = Number(deleted.numDeletedRows);
    result.deliveries += count;
    if (count < SWEEP_BATCH) break;
  }
  for (;;) {
    const batch = db
      .selectFrom('callback_tokens')
      .select('token_hash')
      .where('expires_at', '<=', now)
      .limit(SWEEP_BATCH);
    const deleted = await db
      .deleteFrom('callback_tokens')
      .where('token_hash', 'in', batch)
      .executeTakeFirst();
    const count = Number(deleted.numDeletedRows);
    result.callbackTokens += count;
    if (count < SWEEP_BATCH) break;
  }
  return result;
}

export interface SweeperOptions {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  retentionMs: number;
  /** Time between sweeps (default one minute). */
  intervalMs?: number;
}

export interface Sweeper {
  /** Stops the timer and waits for a running sweep. */
  stop(): Promise<void>;
}

/** Sweeps at start and then every interval, until stopped. */
export function startSweeper(options: SweeperOptions): Sweeper {
  const { db, clock, retentionMs } = options;
  const logger = options.logger.child({ component: 'sweeper' });
  const intervalMs = options.intervalMs ?? 60_000;
  let running: Promise<SweepResult> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  function sweep(): Promise<SweepResult> {
    running ??= sweepExpired(db, clock.now(), retentionMs)
      .then((result) => {
        if (result.deliveries > 0 || result.callbackTokens > 0) logger.info(result, 'expired rows deleted');
        return result;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      sweep()
        .catch((error: unknown) =>
          logger.error({ err: error }, 'sweep failed; retrying at the next interval'),
        )
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  }

  void sweep()
    .catch((error: unknown) => logger.error({ err: error }, 'sweep failed; retrying at the next interval'))
    .finally(schedule);

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => {});
    },
  };
}
