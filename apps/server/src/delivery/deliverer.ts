// One claimed delivery from its attempt to its recorded outcome: checks that its subscription and
// integration still want it, mints the callback token, builds the headers, sends (sender.ts), and records
// what came of it — delivered, retry later (schedule.ts), failed, or its subscription disabled on 410.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { withCallbackToken } from '../auth/callback-tokens.js';
import type { Clock } from '../clock.js';
import type { ServerConfig } from '../config.js';
import { storageFault } from '../db/faults.js';
import type { Database } from '../db/schema.js';
import { deliveryHeaders } from './headers.js';
import {
  type ClaimedDelivery,
  type DeliveryOutcome,
  disableSubscription,
  findDeliveryTarget,
  recordOutcomes,
} from './outbox.js';
import { nextRetryDelayMs } from './schedule.js';
import { type AttemptOutcome, createSender, type Sender } from './sender.js';
import { parseAllowList } from './ssrf.js';

export interface DelivererOptions {
  db: Kysely<Database>;
  logger: Logger;
  clock: Clock;
  /** The claims' `locked_by`: outcomes are recorded only on rows this worker still holds. */
  workerId: string;
  settings: ServerConfig['delivery'];
  callbackTtlMs: number;
  /** Source of the retries' jitter. */
  random: () => number;
}

/** Delivers the rows one dispatcher claims, over its own connections to the receivers. */
export class Deliverer {
  private readonly sender: Sender;
  /** Outcomes waiting to be written: the attempts that finished in the same turn of the event loop. */
  private unrecorded: Array<{ id: string; outcome: DeliveryOutcome; settle: (error?: unknown) => void }> = [];
  private retrying = true;

  constructor(private readonly options: DelivererOptions) {
    const { settings } = options;
    this.sender = createSender({
      timeoutMs: settings.timeoutMs,
      allowList: parseAllowList(settings.allowList),
      caCertificates: settings.caCertificates,
      maxSocketsPerHost: settings.concurrency,
    });
  }

  /**
   * Attempts the delivery and records its outcome. Never rejects: an outcome that cannot be recorded is
   * logged, and the row is tried again once its lease runs out.
   */
  async deliver(row: ClaimedDelivery): Promise<void> {
    try {
      await this.attemptAndRecord(row);
    } catch (error) {
      this.options.logger.error({ deliveryId: row.id, err: error }, 'webhook delivery could not be recorded');
    }
  }

  /**
   * Stops waiting for an unreachable database to record outcomes (shutdown must not wait for it): those
   * rows are tried again once their lease runs out.
   */
  stopRetrying(): void {
    this.retrying = false;
  }

  /** Closes the connections to the receivers; call once no delivery is in flight. */
  close(): void {
    this.sender.close();
  }

  private async attemptAndRecord(row: ClaimedDelivery): Promise<void> {
    const { clock, logger } = this.options;
    const started = clock.now();
    const outcome = await this.attempt(row);
    const now = clock.now();
    const log = { deliveryId: row.id, eventType: row.event_type, attempt: row.attempts, ms: now - started };
    switch (outcome.kind) {
      case 'delivered':
        logger.info({ ...log, status: outcome.status }, 'webhook delivered');
        await this.record(row, {
          status: 'delivered',
          delivered_at: now,
          last_status: outcome.status,
          last_error: null,
        });
        return;
      case 'gone':
        logger.warn(
          { ...log, subscriptionId: row.subscription_id },
          'webhook receiver answered 410 Gone: subscription disabled',
        );
        await disableSubscription(this.options.db, row.subscription_id, row.id, now);
        return;
      case 'permanent':
        logger.error({ ...log, error: outcome.error }, 'webhook delivery failed permanently');
        await this.record(row, { status: 'failed', last_status: outcome.status, last_error: outcome.error });
        return;
      case 'retryable': {
        const { settings, random } = this.options;
        const delay = nextRetryDelayMs(
          row.attempts,
          outcome.retryAfter,
          now,
          settings.retryScheduleMs,
          random,
        );
        if (delay === undefined) {
          logger.error(
            { ...log, status: outcome.status, error: outcome.error },
            'webhook delivery failed: retries exhausted',
          );
          await this.record(row, {
            status: 'failed',
            last_status: outcome.status,
            last_error: outcome.error,
          });
          return;
        }
        logger.warn(
          { ...log, status: outcome.status, error: outcome.error, retryInMs: delay },
          'webhook attempt failed',
        );
        await this.record(row, {
          status: 'pending',
          next_attempt_at: now + delay,
          last_status: outcome.status,
          last_error: outcome.error,
        });
        return;
      }
    }
  }

  private async attempt(row: ClaimedDelivery): Promise<AttemptOutcome> {
    const { db, clock } = this.options;
    const { subscription, integration } = await findDeliveryTarget(db, row);
    // A deleted integration or subscription receives nothing more, not even events already queued.
    if (!integration) return { kind: 'permanent', status: null, error: 'integration deleted' };
    if (!subscription) return { kind: 'permanent', status: null, error: 'subscription deleted' };
    if (subscription.disabled_at !== null)
      return { kind: 'permanent', status: null, error: 'subscription disabled' };
    let headers: Record<string, string>;
    let body: string;
    try {
      const now = clock.now();
      body = await withCallbackToken(db, row.payload, {
        instanceId: row.instance_id,
        integrationId: row.integration_id,
        eventAt: row.created_at,
        callbackTtlMs: this.options.callbackTtlMs,
        now,
      });
      headers = deliveryHeaders(row, integration.signing_secret, now, body);
    } catch (error) {
      return {
        kind: 'permanent',
        status: null,
        error: `cannot build the request: ${(error as Error).message}`,
      };
    }
    return this.sender.send(row.url, headers, body);
  }

  /**
   * Records the outcome of an attempt (recordOutcomes). Outcomes that arrive together are written
   * together; resolves once this one is written.
   */
  private record(row: ClaimedDelivery, outcome: DeliveryOutcome): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.unrecorded.length === 0) setImmediate(() => void this.recordBatch());
      this.unrecorded.push({
        id: row.id,
        outcome,
        settle: (error) => (error === undefined ? resolve() : reject(error)),
      });
    });
  }

  /**
   * Writes the outcomes waiting. While the database is unreachable (a restart) it tries again with
   * backoff: the receivers already have these events, and a row whose lease ran out would be sent again.
   * It gives up once the lease may have run out (claim + lease, the attempt having taken at most the
   * delivery timeout): from then on another dispatcher may hold the row, and it decides.
   */
  private async recordBatch(
    batch = this.takeUnrecorded(),
    giveUpAt = performance.now() + this.options.settings.leaseMs - this.options.settings.timeoutMs,
    delayMs = 100,
  ): Promise<void> {
    const { db, workerId, clock, logger } = this.options;
    try {
      const written = await recordOutcomes(db, workerId, batch, clock.now());
      for (const [index, { id, settle }] of batch.entries()) {
        if (!written[index]) {
          logger.warn(
            { deliveryId: id },
            'delivery outcome not recorded: the row was reclaimed or closed meanwhile',
          );
        }
        settle();
      }
    } catch (error) {
      if (this.retrying && storageFault(error) && performance.now() + delayMs < giveUpAt) {
        setTimeout(() => void this.recordBatch(batch, giveUpAt, Math.min(delayMs * 2, 2_000)), delayMs);
        return;
      }
      // Not recorded: each row's lease runs out and it is tried again.
      for (const { settle } of batch) settle(error ?? new Error('outcome not recorded'));
    }
  }

  private takeUnrecorded() {
    const batch = this.unrecorded;
    this.unrecorded = [];
    return batch;
  }
}
