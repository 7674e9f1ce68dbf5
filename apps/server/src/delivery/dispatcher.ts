// The webhook dispatcher: claims due rows of the `event_deliveries` outbox under a lease, POSTs them
// (sender.ts), and records the outcome: delivered, retry later (schedule.ts), or failed. It polls, and the
// database wakes it whenever rows are added to the outbox (DatabaseHandle.outbox), so a new event is sent
// at once by every instance's dispatcher without the code that wrote it doing anything. A crashed
// process leaves its claimed rows locked only until the lease runs out; another (or the restarted)
// dispatcher then claims them again, so every event is delivered at least once. Receivers dedupe on
// `webhook-id` (the row id, stable across attempts). See docs/delivery.md.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely, Selectable } from 'kysely';
import type { Logger } from 'pino';
import { withCallbackToken } from '../auth/callback-tokens.js';
import type { Clock } from '../clock.js';
import type { ServerConfig } from '../config.js';
import { compiledQuery } from '../db/compiled-query.js';
import type { Database, DatabaseHandle, EventDeliveriesTable } from '../db/database.js';
import { parseRetryAfterMs, retryAfterCapMs, retryDelayMs } from './schedule.js';
import { type AttemptOutcome, createSender } from './sender.js';
import { signDelivery } from './signing.js';
import { parseAllowList } from './ssrf.js';

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

/** The columns a claim reads. */
const CLAIMED_COLUMNS = [
  'id',
  'instance_id',
  'integration_id',
  'subscription_id',
  'event_type',
  'url',
  'payload',
  'headers',
  'attempts',
  'created_at',
] as const;
type ClaimedDelivery = Pick<Selectable<EventDeliveriesTable>, (typeof CLAIMED_COLUMNS)[number]>;

/** Headers the dispatcher sets itself; an integration's configured header of the same name is dropped. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'upgrade',
  'webhook-id',
  'x-chat-event-type',
  'webhook-timestamp',
  'webhook-signature',
]);

const USER_AGENT = 'platform-api-webhooks/1';

// Read for every attempt: compiled once (db/compiled-query.ts).
const selectSubscription = compiledQuery((db: Kysely<Database>, id: string) =>
  db.selectFrom('subscriptions').select(['id', 'disabled_at']).where('id', '=', id),
);
const selectIntegration = compiledQuery((db: Kysely<Database>, id: string) =>
  db.selectFrom('integrations').select(['id', 'signing_secret']).where('id', '=', id),
);

export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const { database, logger: parentLogger, clock } = options;
  const { db, dialect } = database;
  const settings = options.config.delivery;
  const random = options.random ?? Math.random;
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const logger = parentLogger.child({ component: 'webhook-dispatcher', workerId });
  if (settings.leaseMs <= settings.timeoutMs) {
    // A lease shorter than an attempt would let a second dispatcher claim a row still being sent.
    throw new Error(
      `delivery lease (${settings.leaseMs} ms) must be longer than the delivery timeout (${settings.timeoutMs} ms)`,
    );
  }
  const sender = createSender({
    timeoutMs: settings.timeoutMs,
    allowList: parseAllowList(settings.allowList),
    caCertificates: settings.caCertificates,
    maxSocketsPerHost: settings.concurrency,
  });

  let stopping = false;
  let wakeSleeper: (() => void) | undefined;
  // Set by a wake that arrives while a batch is running, so that the loop polls again instead of sleeping.
  let wakeRequested = false;
  /** Polls now instead of at the next interval; during a batch, makes the next poll start at once. */
  function wake(): void {
    wakeRequested = true;
    wakeSleeper?.();
  }

  async function claim(limit: number): Promise<ClaimedDelivery[]> {
    const now = clock.now();
    let due = db
      .selectFrom('event_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .orderBy('next_attempt_at')
      .limit(limit);
    // PostgreSQL: rows another instance is claiming right now are skipped, not waited for. SQLite: the
    // single UPDATE … RETURNING statement is atomic (one writer at a time), which is the whole claim.
    if (dialect === 'postgres') due = due.forUpdate().skipLocked();
    const rows = await db
      .updateTable('event_deliveries')
      .set((eb) => ({
        locked_until: now + settings.leaseMs,
        locked_by: workerId,
        // Counted at claim time, so an attempt cut short by a crash still counts towards the schedule
        // (a payload that kills the process cannot be retried forever).
        attempts: eb('attempts', '+', 1),
      }))
      .where('id', 'in', due)
      .returning(CLAIMED_COLUMNS)
      .execute();
    return rows.map((row) => ({ ...row, attempts: Number(row.attempts) }));
  }

  type Outcome = {
    status: 'pending' | 'delivered' | 'failed';
    next_attempt_at?: number;
    delivered_at?: number;
    last_status: number | null;
    last_error: string | null;
  };
  /** Outcomes waiting to be written: the attempts that finished in the same turn of the event loop. */
  let unrecorded: Array<{ row: ClaimedDelivery; values: Outcome; settle: (error?: unknown) => void }> = [];

  /**
   * Records the outcome of an attempt, unless the lease was lost meanwhile (then the new holder decides).
   * Outcomes that arrive together are written in one transaction (one commit instead of one each);
   * resolves once this one is written.
   */
  function record(row: ClaimedDelivery, values: Outcome): Promise<void> {
    return new Promise((resolve, reject) => {
      if (unrecorded.length === 0) setImmediate(recordBatch);
      unrecorded.push({ row, values, settle: (error) => (error === undefined ? resolve() : reject(error)) });
    });
  }

  async function recordBatch(): Promise<void> {
    const batch = unrecorded;
    unrecorded = [];
    const update = (executor: Kysely<Database>, row: ClaimedDelivery, values: Outcome) =>
      executor
        .updateTable('event_deliveries')
        .set({ ...values, finished_at: values.status === 'pending' ? null : clock.now(), locked_until: null })
        .where('id', '=', row.id)
        .where('locked_by', '=', workerId)
        .where('status', '=', 'pending')
        .executeTakeFirst()
        .then((result) => Number(result.numUpdatedRows));
    try {
      // One outcome alone needs no transaction around its single statement.
      const [only] = batch;
      const updated =
        only && batch.length === 1
          ? [await update(db, only.row, only.values)]
          : await db.transaction().execute(async (trx) => {
              const counts: number[] = [];
              for (const { row, values } of batch) counts.push(await update(trx, row, values));
              return counts;
            });
      for (const [index, { row, settle }] of batch.entries()) {
        if (updated[index] === 0) {
          logger.warn(
            { deliveryId: row.id },
            'delivery outcome not recorded: the row was reclaimed or closed meanwhile',
          );
        }
        settle();
      }
    } catch (error) {
      // Not recorded: each row's lease runs out and it is tried again.
      for (const { settle } of batch) settle(error ?? new Error('outcome not recorded'));
    }
  }

  function buildHeaders(
    row: ClaimedDelivery,
    signingSecret: string | null,
    now: number,
    body: string,
  ): Record<string, string> {
    // No prototype: a configured header named "constructor" or "__proto__" is just a header.
    const headers: Record<string, string> = Object.create(null);
    const configured = JSON.parse(row.headers) as unknown;
    if (!Array.isArray(configured)) throw new Error('stored headers are not a JSON array');
    for (const header of configured as { name?: unknown; value?: unknown }[]) {
      if (typeof header?.name !== 'string' || typeof header.value !== 'string') {
        throw new Error('stored headers must be {name, value} strings');
      }
      const name = header.name.toLowerCase();
      if (RESERVED_HEADERS.has(name)) continue;
      headers[name] = headers[name] === undefined ? header.value : `${headers[name]}, ${header.value}`;
    }
    headers['user-agent'] ??= USER_AGENT;
    headers['content-type'] = 'application/json';
    headers['webhook-id'] = row.id;
    headers['x-chat-event-type'] = row.event_type;
    if (signingSecret) Object.assign(headers, signDelivery(signingSecret, row.id, now, body));
    return headers;
  }

  async function attempt(row: ClaimedDelivery): Promise<AttemptOutcome> {
    const [subscription, integration] = await Promise.all([
      selectSubscription(db, row.subscription_id).then((result) => result.rows[0]),
      selectIntegration(db, row.integration_id).then((result) => result.rows[0]),
    ]);
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
        callbackTtlMs: options.config.callbackTtlMs,
        now,
      });
      headers = buildHeaders(row, integration.signing_secret, now, body);
    } catch (error) {
      return {
        kind: 'permanent',
        status: null,
        error: `cannot build the request: ${(error as Error).message}`,
      };
    }
    return sender.send(row.url, headers, body);
  }

  async function deliver(row: ClaimedDelivery): Promise<void> {
    const started = clock.now();
    const outcome = await attempt(row);
    const now = clock.now();
    const log = { deliveryId: row.id, eventType: row.event_type, attempt: row.attempts, ms: now - started };
    switch (outcome.kind) {
      case 'delivered':
        logger.info({ ...log, status: outcome.status }, 'webhook delivered');
        await record(row, {
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
        await disableSubscription(row, now);
        return;
      case 'permanent':
        logger.error({ ...log, error: outcome.error }, 'webhook delivery failed permanently');
        await record(row, { status: 'failed', last_status: outcome.status, last_error: outcome.error });
        return;
      case 'retryable': {
        const jittered = retryDelayMs(row.attempts, settings.retryScheduleMs, random);
        if (jittered === undefined) {
          logger.error(
            { ...log, status: outcome.status, error: outcome.error },
            'webhook delivery failed: retries exhausted',
          );
          await record(row, { status: 'failed', last_status: outcome.status, last_error: outcome.error });
          return;
        }
        const retryAfter = parseRetryAfterMs(outcome.retryAfter, now);
        const delay =
          retryAfter === undefined
            ? jittered
            : Math.max(jittered, Math.min(retryAfter, retryAfterCapMs(settings.retryScheduleMs)));
        logger.warn(
          { ...log, status: outcome.status, error: outcome.error, retryInMs: delay },
          'webhook attempt failed',
        );
        await record(row, {
          status: 'pending',
          next_attempt_at: now + delay,
          last_status: outcome.status,
          last_error: outcome.error,
        });
        return;
      }
    }
  }

  /** 410 Gone: disable the subscription and close every pending delivery for it, in one transaction. */
  async function disableSubscription(row: ClaimedDelivery, now: number): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('subscriptions')
        .set({ disabled_at: now })
        .where('id', '=', row.subscription_id)
        .where('disabled_at', 'is', null)
        .execute();
      await trx
        .updateTable('event_deliveries')
        .set({
          status: 'failed',
          locked_until: null,
          finished_at: now,
          last_error: 'subscription disabled: receiver answered 410 Gone',
        })
        .where('subscription_id', '=', row.subscription_id)
        .where('status', '=', 'pending')
        .execute();
      await trx.updateTable('event_deliveries').set({ last_status: 410 }).where('id', '=', row.id).execute();
    });
  }

  /*
   * A window of attempts, not lock-step batches: whenever fewer than `concurrency` attempts are in flight,
   * the dispatcher claims at most as many due rows as there is room for (never more: a claimed row's lease
   * runs while it waits) and starts them at once. A slow receiver then holds one slot, not a whole batch.
   */
  /** Attempts in flight, and claims being made (by the poll loop or by drain()). */
  const inFlight = new Set<Promise<void>>();
  const claiming = new Set<Promise<number>>();
  let slotFreed: (() => void) | undefined;

  function room(): number {
    return Math.min(settings.batchSize, settings.concurrency - inFlight.size);
  }

  /** Claims up to `limit` rows and starts delivering them; resolves with the number claimed. */
  function claimAndStart(limit: number): Promise<number> {
    const claimed = claim(limit).then((rows) => {
      for (const row of rows) {
        const delivery = deliver(row)
          .catch((error: unknown) => {
            // The lease will run out and the row will be tried again.
            logger.error({ deliveryId: row.id, err: error }, 'webhook delivery could not be recorded');
          })
          .finally(() => {
            inFlight.delete(delivery);
            slotFreed?.();
          });
        inFlight.add(delivery);
      }
      return rows.length;
    });
    claiming.add(claimed);
    void claimed.then(
      () => claiming.delete(claimed),
      () => claiming.delete(claimed),
    );
    return claimed;
  }

  /** Resolves when an attempt finishes (a slot is free) or the dispatcher stops. */
  function slotFree(): Promise<void> {
    return new Promise((resolve) => {
      slotFreed = () => {
        slotFreed = undefined;
        resolve();
      };
      if (stopping) slotFreed();
    });
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeSleeper = undefined;
        resolve();
      }
      wakeSleeper = done;
    });
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      wakeRequested = false;
      const limit = room();
      if (limit <= 0) {
        await slotFree();
        continue;
      }
      let claimed = 0;
      try {
        claimed = await claimAndStart(limit);
      } catch (error) {
        logger.error({ err: error }, 'webhook dispatcher poll failed');
      }
      // As many rows as asked for means there is probably more due work: claim again at once (once there
      // is room); so does a wake meanwhile. Otherwise sleep until the next poll or wake.
      if (!stopping && !wakeRequested && claimed < limit) await sleep(settings.pollIntervalMs);
    }
  }

  const running = loop();
  const unsubscribed = database.outbox.subscribe(wake).catch((error: unknown) => {
    // Without the signal the dispatcher still polls; new events just wait for the next poll.
    logger.error({ err: error }, 'cannot listen for outbox writes; polling only');
    return async () => {};
  });
  logger.debug('webhook dispatcher started');

  return {
    async stop() {
      stopping = true;
      await (await unsubscribed)();
      wakeSleeper?.();
      slotFreed?.();
      await running;
      await Promise.allSettled(claiming);
      await Promise.allSettled(inFlight);
      sender.close();
      logger.debug('webhook dispatcher stopped');
    },
    async drain() {
      while (!stopping) {
        const limit = room();
        const claimed = limit > 0 ? await claimAndStart(limit) : 0;
        // Nothing claimed: done once nothing is being claimed or sent any more (the poll loop's claim may
        // hold rows this one skipped, and failed attempts may make rows due again).
        if (claimed === 0) {
          if (claiming.size === 0 && inFlight.size === 0) return;
          await Promise.allSettled([...claiming, ...inFlight]);
        }
      }
    },
  };
}
