// One claimed delivery from its attempt to its recorded outcome: checks that its subscription and
// integration still want it, mints the callback token, builds the headers, sends (sender.ts), and records
// what came of it — delivered, retry later (schedule.ts), failed, or its subscription disabled on 410.
import type { Insertable, Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  insertCallbackTokens,
  type MintedCallbackToken,
  mintCallbackToken,
} from '../auth/callback-tokens.js';
import type { Clock } from '../clock.js';
import type { ServerConfig } from '../config.js';
import { storageFault } from '../db/faults.js';
import type { ClaimedDelivery, DeliveryOutcome, OutboxStore } from '../db/outbox-store.js';
import type { CallbackTokensTable, Database } from '../db/schema.js';
import { batch, fulfilled, type ItemResults } from '../db/turn-batch.js';
import { deliveryHeaders } from './headers.js';
import { nextRetryDelayMs } from './schedule.js';
import { type AttemptOutcome, createSender, type Sender } from './sender.js';
import { parseAllowList } from './ssrf.js';

export interface DelivererOptions {
  db: Kysely<Database>;
  outbox: OutboxStore;
  logger: Logger;
  clock: Clock;
  /** The claims' `locked_by`: outcomes are recorded only on rows this worker still holds. */
  workerId: string;
  settings: ServerConfig['delivery'];
  callbackTtlMs: number;
  /** Source of the retries' jitter. */
  random: () => number;
}

/** A subscription's circuit breaker as the claim read it (db/outbox-store.ts keeps it). */
interface Breaker {
  failures: number;
  /** null: closed; future: open; past: half-open. */
  openUntil: number | null;
  /** This attempt is the half-open breaker's probe. */
  probe: boolean;
}

/** Delivers the rows one dispatcher claims, over its own connections to the receivers. */
export class Deliverer {
  private readonly sender: Sender;
  /** Stores a minted callback token, in one statement with those of the other attempts of its turn. */
  private readonly storeToken: (row: Insertable<CallbackTokensTable>) => Promise<void>;
  /** Records an attempt's outcome, in one statement with those of the other attempts of its turn. */
  private readonly recordOutcome: (outcome: { id: string; outcome: DeliveryOutcome }) => Promise<void>;
  private retrying = true;

  constructor(private readonly options: DelivererOptions) {
    const { settings } = options;
    this.storeToken = batch(async (rows: Array<Insertable<CallbackTokensTable>>) => {
      await insertCallbackTokens(options.db, rows);
      return fulfilled(rows.map(() => undefined));
    });
    this.recordOutcome = batch((outcomes: Array<{ id: string; outcome: DeliveryOutcome }>) =>
      this.writeOutcomes(outcomes),
    );
    this.sender = createSender({
      timeoutMs: settings.timeoutMs,
      allowList: parseAllowList(settings.allowList),
      caCertificates: settings.caCertificates,
      // The dispatcher keeps each host within its cap; the agent never makes an attempt queue.
      maxSocketsPerHost: Math.max(settings.perHost, settings.concurrency),
    });
  }

  /**
   * Attempts the delivery and records its outcome; resolves with whether the receiver took it (2xx), which
   * the dispatcher's caps go by. Never rejects: an outcome that cannot be recorded is logged, and the row
   * is tried again once its lease runs out.
   */
  async deliver(row: ClaimedDelivery): Promise<boolean> {
    try {
      return (await this.attemptAndRecord(row)) === 'delivered';
    } catch (error) {
      this.options.logger.error({ deliveryId: row.id, err: error }, 'webhook delivery could not be recorded');
      return false;
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

  /** The attempt's outcome, once recorded ('held': not attempted, handed back). */
  private async attemptAndRecord(row: ClaimedDelivery): Promise<AttemptOutcome['kind'] | 'held'> {
    const { clock, logger } = this.options;
    const started = clock.now();
    const result = await this.attempt(row);
    if (result === 'held') return 'held';
    const { outcome, breaker } = result;
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
        if (breaker.failures > 0 || breaker.openUntil !== null) {
          await this.options.outbox.closeBreaker(row.subscription_id);
          if (breaker.probe || breaker.openUntil !== null) {
            logger.info({ subscriptionId: row.subscription_id }, 'webhook circuit breaker closed');
          }
        }
        return outcome.kind;
      case 'gone':
        logger.warn(
          { ...log, subscriptionId: row.subscription_id },
          'webhook receiver answered 410 Gone: subscription disabled',
        );
        await this.options.outbox.disableSubscription(row.subscription_id, row.id, now);
        return outcome.kind;
      case 'permanent':
        logger.error({ ...log, error: outcome.error }, 'webhook delivery failed permanently');
        await this.record(row, { status: 'failed', last_status: outcome.status, last_error: outcome.error });
        return outcome.kind;
      case 'retryable': {
        const { settings, random } = this.options;
        await this.countFailure(row, breaker, now);
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
          return outcome.kind;
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
        return outcome.kind;
      }
    }
  }

  /**
   * The attempt's outcome, and the breaker as it was before it ('held': the breaker did not let the row
   * go, and it was handed back untried).
   */
  private async attempt(
    row: ClaimedDelivery,
  ): Promise<'held' | { outcome: AttemptOutcome; breaker: Breaker }> {
    const { subscription, integration } = row;
    const closed: Breaker = { failures: 0, openUntil: null, probe: false };
    const permanent = (error: string) => ({
      outcome: { kind: 'permanent', status: null, error } as const,
      breaker: closed,
    });
    // A deleted integration or subscription receives nothing more, not even events already queued.
    if (!integration) return permanent('integration deleted');
    if (!subscription) return permanent('subscription deleted');
    if (subscription.disabled_at !== null) return permanent('subscription disabled');
    const breaker: Breaker = {
      failures: subscription.breaker_failures,
      openUntil: subscription.breaker_open_until,
      probe: false,
    };
    if (!(await this.breakerLetsGo(row, breaker))) {
      await this.options.outbox.release(this.options.workerId, [row.id]);
      return 'held';
    }
    return { outcome: await this.send(row, integration.signing_secret), breaker };
  }

  /**
   * Closed: go. Open (claimed just before it opened): no. Half-open: only the one probe, whichever
   * attempt of whichever instance takes it first.
   */
  private async breakerLetsGo(row: ClaimedDelivery, breaker: Breaker): Promise<boolean> {
    const { outbox, clock, settings, logger } = this.options;
    if (breaker.openUntil === null) return true;
    const now = clock.now();
    if (breaker.openUntil > now) return false;
    // The probe holds the breaker until its own deadline: if its process dies, another may go then.
    const probe = await outbox.takeBreakerProbe(row.subscription_id, now, now + settings.timeoutMs + 1000);
    breaker.probe = probe;
    if (probe) {
      logger.info(
        { subscriptionId: row.subscription_id, deliveryId: row.id, failures: breaker.failures },
        'webhook circuit breaker half-open: one probe goes',
      );
    }
    return probe;
  }

  /** A failed attempt counts on the breaker; at the threshold (or a failed probe) the breaker opens. */
  private async countFailure(row: ClaimedDelivery, before: Breaker, now: number): Promise<void> {
    const { outbox, settings, logger } = this.options;
    const state = await outbox.recordBreakerFailure(row.subscription_id, {
      now,
      threshold: settings.breakerThreshold,
      cooldownMs: settings.breakerCooldownMs,
    });
    // Logged on the transition only, not for each attempt that was in flight when it opened.
    if (state && (before.probe || state.failures === settings.breakerThreshold)) {
      logger.warn(
        { subscriptionId: row.subscription_id, failures: state.failures, openUntil: state.openUntil },
        before.probe
          ? 'webhook circuit breaker re-opened: the probe failed'
          : 'webhook circuit breaker opened: deliveries held',
      );
    }
  }

  private async send(row: ClaimedDelivery, signingSecret: string | null): Promise<AttemptOutcome> {
    const { clock } = this.options;
    let headers: Record<string, string>;
    let minted: MintedCallbackToken;
    try {
      const now = clock.now();
      minted = mintCallbackToken(row.payload, {
        instanceId: row.instance_id,
        integrationId: row.integration_id,
        eventAt: row.created_at,
        callbackTtlMs: this.options.callbackTtlMs,
        now,
      });
      headers = deliveryHeaders(row, signingSecret, now, minted.body);
    } catch (error) {
      return {
        kind: 'permanent',
        status: null,
        error: `cannot build the request: ${(error as Error).message}`,
      };
    }
    // Stored before the receiver can use it. A database that cannot store it fails this call (deliver()
    // logs it; the row is tried again once its lease runs out), not the delivery.
    await this.storeToken(minted.row);
    return this.sender.send(row.url, headers, minted.body);
  }

  private record(row: ClaimedDelivery, outcome: DeliveryOutcome): Promise<void> {
    return this.recordOutcome({ id: row.id, outcome });
  }

  /**
   * Writes the outcomes of a turn. While the database is unreachable (a restart) it tries again with
   * backoff: the receivers already have these events, and a row whose lease ran out would be sent again.
   * It gives up once the lease may have run out (claim + lease, the attempt having taken at most the
   * delivery timeout): from then on another dispatcher may hold the row, and it decides.
   */
  private async writeOutcomes(
    outcomes: Array<{ id: string; outcome: DeliveryOutcome }>,
  ): Promise<ItemResults<void>> {
    const { outbox, workerId, clock, logger, settings } = this.options;
    const giveUpAt = performance.now() + settings.leaseMs - settings.timeoutMs;
    for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 2_000)) {
      try {
        const written = await outbox.recordOutcomes(workerId, outcomes, clock.now());
        for (const [index, { id }] of outcomes.entries()) {
          if (!written[index]) {
            logger.warn(
              { deliveryId: id },
              'delivery outcome not recorded: the row was reclaimed or closed meanwhile',
            );
          }
        }
        return fulfilled(outcomes.map(() => undefined));
      } catch (error) {
        // Not recorded: each row's lease runs out and it is tried again.
        if (!(this.retrying && storageFault(error) && performance.now() + delayMs < giveUpAt)) throw error;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }
}
