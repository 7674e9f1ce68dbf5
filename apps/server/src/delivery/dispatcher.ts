// The webhook dispatcher: claims due rows of the `event_deliveries` outbox under a lease (db/outbox-store.ts) and
// has each delivered (deliverer.ts: sent, then delivered, retried later or failed). It polls, and the
// database wakes it whenever rows are added to the outbox (DatabaseHandle.outbox), so a new event is sent
// at once by every instance's dispatcher without the code that wrote it doing anything. A crashed
// process leaves its claimed rows locked only until the lease runs out; another (or the restarted)
// dispatcher then claims them again, so every event is delivered at least once. Receivers dedupe on
// `webhook-id` (the row id, stable across attempts). See docs/delivery.md.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { ServerConfig } from '../config.js';
import type { DatabaseHandle } from '../db/database.js';
import { storageFault } from '../db/faults.js';
import type { ClaimedDelivery } from '../db/outbox-store.js';
import { DeliveryCaps } from './caps.js';
import { Deliverer } from './deliverer.js';

export interface DispatcherOptions {
  database: DatabaseHandle;
  config: ServerConfig;
  logger: Logger;
  clock: Clock;
  /** Names this dispatcher in `locked_by`; unique per process by default. */
  workerId?: string;
  /** Source of jitter; tests may pin it. */
  random?: () => number;
}

export interface Dispatcher {
  /** Stops claiming new rows and resolves once every in-flight delivery has finished and been recorded. */
  stop(): Promise<void>;
  /** Delivers until no row is due now (deliveries scheduled for later are left alone). */
  drain(): Promise<void>;
}

export function startDispatcher(options: DispatcherOptions): Dispatcher {
  return new WindowDispatcher(options);
}

/*
 * A window of attempts, not lock-step batches: whenever fewer than `concurrency` attempts are in flight,
 * the dispatcher claims at most as many due rows as there is room for (never more: a claimed row's lease
 * runs while it waits) and starts them at once. A slow receiver then holds one slot, not a whole batch.
 *
 * Isolation: one destination never holds more than its share of the window (the policy: caps.ts).
 * Subscriptions that are full are left out of the next claim; a row claimed beyond a cap is handed back at
 * once, its attempt not counted (OutboxStore.release). So a receiver that hangs until the timeout only
 * delays its own queue, while a healthy one can still use the window's free slots. The circuit breaker
 * (deliverer.ts, db/outbox-store.ts) then stops sending to a subscription that keeps failing.
 */
class WindowDispatcher implements Dispatcher {
  private readonly settings: ServerConfig['delivery'];
  private readonly workerId: string;
  private readonly logger: Logger;
  private readonly deliverer: Deliverer;
  private stopping = false;
  private wakeSleeper: (() => void) | undefined;
  /** Set by a wake that arrives while a batch is running, so that the loop polls again instead of sleeping. */
  private wakeRequested = false;
  /** Attempts in flight, and claims being made (by the poll loop or by drain()). */
  private readonly inFlight = new Set<Promise<void>>();
  /** Who may start another attempt (caps.ts). */
  private readonly caps: DeliveryCaps;
  /**
   * The last claim left rows alone or handed some back for want of room under a cap: a finished attempt
   * then makes the loop claim again, instead of the rows waiting for the next poll.
   */
  private heldBack = false;
  private readonly claiming = new Set<Promise<number>>();
  private slotFreed: (() => void) | undefined;
  /** When the poll loop last started a claim (performance.now()). */
  private lastClaimAt = Number.NEGATIVE_INFINITY;
  /** Set while polls fail because the database is unavailable: logged once, not at every poll. */
  private pollsFailing = false;
  private readonly running: Promise<void>;
  private readonly unsubscribed: Promise<() => Promise<void>>;

  constructor(private readonly options: DispatcherOptions) {
    const settings = options.config.delivery;
    if (settings.leaseMs <= settings.timeoutMs) {
      // A lease shorter than an attempt would let a second dispatcher claim a row still being sent.
      throw new Error(
        `delivery lease (${settings.leaseMs} ms) must be longer than the delivery timeout (${settings.timeoutMs} ms)`,
      );
    }
    this.settings = settings;
    this.caps = new DeliveryCaps(settings);
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.logger = options.logger.child({ component: 'webhook-dispatcher', workerId: this.workerId });
    this.deliverer = new Deliverer({
      db: options.database.db,
      outbox: options.database.deliveries,
      logger: this.logger,
      clock: options.clock,
      workerId: this.workerId,
      settings,
      callbackTtlMs: options.config.callbackTtlMs,
      random: options.random ?? Math.random,
    });
    this.running = this.loop();
    this.unsubscribed = options.database.outbox
      .subscribe(() => this.wake())
      .catch((error: unknown) => {
        // Without the signal the dispatcher still polls; new events just wait for the next poll.
        this.logger.error({ err: error }, 'cannot listen for outbox writes; polling only');
        return async () => {};
      });
    this.logger.debug('webhook dispatcher started');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await (await this.unsubscribed)();
    this.wakeSleeper?.();
    this.slotFreed?.();
    await this.running;
    await Promise.allSettled(this.claiming);
    this.deliverer.stopRetrying();
    await Promise.allSettled(this.inFlight);
    this.deliverer.close();
    this.logger.debug('webhook dispatcher stopped');
  }

  async drain(): Promise<void> {
    while (!this.stopping) {
      const limit = this.room();
      const claimed = limit > 0 ? await this.claimAndStart(limit) : 0;
      // Nothing claimed: done once nothing is being claimed or sent any more (the poll loop's claim may
      // hold rows this one skipped, and failed attempts may make rows due again).
      if (claimed === 0) {
        if (this.claiming.size === 0 && this.inFlight.size === 0) return;
        await Promise.allSettled([...this.claiming, ...this.inFlight]);
      }
    }
  }

  /** Polls now instead of at the next interval; during a batch, makes the next poll start at once. */
  private wake(): void {
    this.wakeRequested = true;
    this.wakeSleeper?.();
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      this.wakeRequested = false;
      const limit = this.room();
      if (limit <= 0) {
        await this.slotFree();
        continue;
      }
      // Claims at most one per CLAIM_SPACING_MS: under load the rows that became due and the slots freed
      // meanwhile are claimed together (one claim, one token insert, one read of their subscriptions),
      // instead of one claim for each post's wake or each finished attempt.
      const early = this.lastClaimAt + CLAIM_SPACING_MS - performance.now();
      if (early > 0) {
        await delay(early);
        continue;
      }
      this.lastClaimAt = performance.now();
      let claimed = 0;
      try {
        claimed = await this.claimAndStart(limit);
        if (this.pollsFailing) this.logger.info('webhook dispatcher polls again');
        this.pollsFailing = false;
      } catch (error) {
        const fault = storageFault(error);
        if (!fault || !this.pollsFailing) {
          this.logger.error({ err: error }, 'webhook dispatcher poll failed; polling on');
        }
        this.pollsFailing = fault !== undefined;
      }
      // As many rows as asked for means there is probably more due work: claim again at once (once there
      // is room); so does a wake meanwhile. Otherwise sleep until the next poll or wake.
      if (!this.stopping && !this.wakeRequested && claimed < limit) {
        await this.sleep(this.settings.pollIntervalMs);
      }
    }
  }

  private room(): number {
    return Math.min(this.settings.batchSize, this.settings.concurrency - this.inFlight.size);
  }

  /** Claims up to `limit` rows and starts delivering them; resolves with the number claimed. */
  private claimAndStart(limit: number): Promise<number> {
    const { database, clock } = this.options;
    const excludeSubscriptions = this.caps.excluded(performance.now());
    const claimed = database.deliveries
      .claim({
        workerId: this.workerId,
        leaseMs: this.settings.leaseMs,
        limit,
        now: clock.now(),
        excludeSubscriptions,
      })
      .then(async (rows) => {
        const handedBack: string[] = [];
        for (const row of rows) {
          if (!this.start(row)) handedBack.push(row.id);
        }
        this.heldBack = excludeSubscriptions.length > 0 || handedBack.length > 0;
        if (handedBack.length > 0) {
          this.logger.debug({ rows: handedBack.length }, 'claimed rows beyond a cap handed back');
          await database.deliveries.release(this.workerId, handedBack);
        }
        return rows.length;
      });
    this.claiming.add(claimed);
    void claimed.then(
      () => this.claiming.delete(claimed),
      () => this.claiming.delete(claimed),
    );
    return claimed;
  }

  /** Starts the row's attempt if its subscription and host have room; false if they have not. */
  private start(row: ClaimedDelivery): boolean {
    const attempt = this.caps.start(row.subscription_id, hostOf(row.url), performance.now());
    if (!attempt) return false;
    const delivery = this.deliverer.deliver(row).then((delivered) => {
      this.inFlight.delete(delivery);
      this.caps.finish(attempt, delivered);
      this.slotFreed?.();
      if (this.heldBack) this.wake();
    });
    this.inFlight.add(delivery);
    return true;
  }

  /** Resolves when an attempt finishes (a slot is free) or the dispatcher stops. */
  private slotFree(): Promise<void> {
    return new Promise((resolve) => {
      this.slotFreed = () => {
        this.slotFreed = undefined;
        resolve();
      };
      if (this.stopping) this.slotFreed();
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeSleeper = done;
    });
  }
}

/**
 * The least time between two claims of the poll loop. A claim costs about the same for one row as for
 * thirty, and at a few thousand events a second every post's wake and every finished attempt would
 * otherwise start one; an idle dispatcher still claims a new row at once.
 */
const CLAIM_SPACING_MS = 4;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The receiver's host:port, the unit of the per-host cap (an unparsable URL fails in the sender). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}
