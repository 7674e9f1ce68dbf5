// A receiver that hangs or fails must not delay the others. Real HTTPS receivers, on SQLite and
// on PostgreSQL. No assertion on milliseconds: the delivery timeout is long (30 s), and every healthy
// delivery must arrive long before one timeout could have elapsed (a quarter of it), which it cannot if a
// hanging receiver holds the window. The rest is structure: the caps on attempts in flight per
// destination, the breaker's transitions (its log lines and its columns), and that every event ends
// delivered or failed after a bounded number of attempts.
import { Writable } from 'node:stream';
import type { SelfSignedCertificate } from '@platform-api/test-support';
import { selfSignedCertificate } from '@platform-api/test-support';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { ServerConfig } from '../../src/config.js';
import { type Dispatcher, startDispatcher } from '../../src/delivery/dispatcher.js';
import { describeEachDialect } from '../helpers/databases.js';
import {
  enqueue,
  openTestDatabase,
  type Receiver,
  removeCertificate,
  type SeededSubscription,
  seedSubscription,
  startReceiver,
  type TestDatabase,
  testConfig,
} from './support.js';

const TIMEOUT_MS = 30_000;
const PER_SUBSCRIPTION = 4;
const RETRY_SCHEDULE = [50, 50, 50];
/** Patient waits: a loaded 2-core machine may be slow, never wrong. */
const WAIT = { timeout: 120_000, interval: 50 };

/** A receiver that holds every request until heal(), then answers 204 to those and to every later one. */
async function hangingReceiver(certificate: SelfSignedCertificate) {
  const receiver = await startReceiver(certificate);
  let heal!: () => void;
  const healed = new Promise<void>((resolve) => {
    heal = resolve;
  });
  receiver.respond = () => ({ status: 204, until: healed });
  return { receiver, heal };
}

/** A pino logger whose lines the test reads. */
function recordingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describeEachDialect('webhook delivery isolation on %s', (dialect) => {
  let certificate: SelfSignedCertificate;
  let database: TestDatabase;
  const receivers: Receiver[] = [];
  const dispatchers: Dispatcher[] = [];

  beforeAll(async () => {
    certificate = selfSignedCertificate();
    database = await openTestDatabase(dialect);
  });
  afterEach(async () => {
    // Receivers first: closing them ends any attempt still held, so stopping does not wait for timeouts.
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    await Promise.all(dispatchers.splice(0).map((d) => d.stop()));
  });
  afterAll(async () => {
    await database?.dispose();
    if (certificate) removeCertificate(certificate);
  });

  async function receiver(): Promise<Receiver> {
    const started = await startReceiver(certificate);
    receivers.push(started);
    return started;
  }

  function dispatch(delivery: Partial<ServerConfig['delivery']>, logger = recordingLogger().logger) {
    const dispatcher = startDispatcher({
      database,
      config: testConfig(certificate, {
        timeoutMs: TIMEOUT_MS,
        retryScheduleMs: RETRY_SCHEDULE,
        perSubscription: PER_SUBSCRIPTION,
        ...delivery,
      }),
      logger,
      clock: systemClock,
    });
    dispatchers.push(dispatcher);
    return dispatcher;
  }

  /** Enqueues `events` events for every subscription, at about `perSecond`; the healthy one's ids. */
  async function offer(targets: SeededSubscription[], healthy: SeededSubscription, events: number) {
    const healthyIds: string[] = [];
    for (let i = 0; i < events; i++) {
      for (const target of targets) {
        const id = await enqueue(database, target);
        if (target === healthy) healthyIds.push(id);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return healthyIds;
  }

  const rowsOf = (subscriptionId: string) =>
    database.db
      .selectFrom('event_deliveries')
      .select(['id', 'status', 'attempts', 'created_at', 'delivered_at', 'last_status'])
      .where('subscription_id', '=', subscriptionId)
      .execute();

  const breakerOf = (subscriptionId: string) =>
    database.db
      .selectFrom('subscriptions')
      .select(['breaker_failures', 'breaker_open_until'])
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow();

  /** Every healthy delivery arrived, each within a quarter of one timeout of being enqueued. */
  async function expectHealthyOnTime(healthy: SeededSubscription, ids: string[]) {
    await vi.waitFor(async () => {
      const rows = await rowsOf(healthy.subscriptionId);
      expect(rows.filter((row) => row.status === 'delivered')).toHaveLength(ids.length);
    }, WAIT);
    const rows = await rowsOf(healthy.subscriptionId);
    const late = rows.filter((row) => Number(row.delivered_at) - Number(row.created_at) >= TIMEOUT_MS / 4);
    expect(late).toEqual([]);
    expect(rows.every((row) => Number(row.attempts) === 1)).toBe(true);
  }

  it('one hanging and one failing receiver: the healthy one is served, the breaker opens and closes, nothing is lost', async () => {
    const healthyReceiver = await receiver();
    const hanging = await hangingReceiver(certificate);
    receivers.push(hanging.receiver);
    const failing = await receiver();
    failing.respond = () => ({ status: 500 });
    const healthy = await seedSubscription(database, { url: healthyReceiver.url('/healthy') });
    const stuck = await seedSubscription(database, { url: hanging.receiver.url('/hangs') });
    const broken = await seedSubscription(database, { url: failing.url('/fails') });
    const { logger, lines } = recordingLogger();
    dispatch({ concurrency: 16, breakerThreshold: 3, breakerCooldownMs: 200 }, logger);

    const ids = await offer([healthy, stuck, broken], healthy, 40);
    await expectHealthyOnTime(healthy, ids);

    // The hanging receiver never had more than the cap of attempts at once (none has ended yet).
    expect(hanging.receiver.requests.length).toBeGreaterThan(0);
    expect(hanging.receiver.requests.length).toBeLessThanOrEqual(PER_SUBSCRIPTION);
    // The failing one opened its breaker.
    await vi.waitFor(() => {
      const opened = lines.filter(
        (line) => line.subscriptionId === broken.subscriptionId && String(line.msg).includes('opened'),
      );
      expect(opened.length).toBeGreaterThan(0);
    }, WAIT);

    // Both heal: the held attempts end, the breaker lets a probe through and closes, the rest is sent.
    failing.respond = () => ({ status: 204 });
    hanging.heal();
    for (const target of [stuck, broken]) {
      await vi.waitFor(async () => {
        const rows = await rowsOf(target.subscriptionId);
        expect(rows.filter((row) => row.status === 'pending')).toEqual([]);
      }, WAIT);
    }
    const messages = lines
      .filter((line) => line.subscriptionId === broken.subscriptionId)
      .map((line) => String(line.msg));
    expect(messages).toContain('webhook circuit breaker half-open: one probe goes');
    expect(messages).toContain('webhook circuit breaker closed');
    expect(await breakerOf(broken.subscriptionId)).toEqual({ breaker_failures: 0, breaker_open_until: null });

    // Nothing lost: every row delivered, or failed after the schedule's attempts (1 + its retries).
    for (const target of [healthy, stuck, broken]) {
      const rows = await rowsOf(target.subscriptionId);
      expect(rows).toHaveLength(40);
      for (const row of rows) {
        expect(['delivered', 'failed']).toContain(row.status);
        expect(Number(row.attempts)).toBeLessThanOrEqual(RETRY_SCHEDULE.length + 1);
        if (row.status === 'failed') {
          expect(row.last_status).toBe(500);
          expect(Number(row.attempts)).toBe(RETRY_SCHEDULE.length + 1);
        }
      }
    }
    // Rows held back by the cap were handed back untried: each hanging row was attempted once, when it
    // was delivered.
    const stuckRows = await rowsOf(stuck.subscriptionId);
    expect(stuckRows.every((row) => row.status === 'delivered' && Number(row.attempts) === 1)).toBe(true);
  });

  it('a backlog beyond the caps drains as attempts finish, without waiting for a poll', async () => {
    const healthyReceiver = await receiver();
    const healthy = await seedSubscription(database, { url: healthyReceiver.url('/backlog') });
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push(await enqueue(database, healthy));
    // Its first claim gets more rows than the caps let go; the rest must follow as soon as there is room
    // (the next poll is an hour away).
    dispatch({ pollIntervalMs: 3_600_000, batchSize: 32 });
    await vi.waitFor(async () => {
      const rows = await rowsOf(healthy.subscriptionId);
      expect(rows.filter((row) => row.status === 'delivered')).toHaveLength(ids.length);
    }, WAIT);
    // Handed back untried, never counted: every row was attempted once.
    const rows = await rowsOf(healthy.subscriptionId);
    expect(rows.every((row) => Number(row.attempts) === 1)).toBe(true);
    expect(healthyReceiver.requests).toHaveLength(ids.length);
  });

  it('50 hanging receivers: the healthy one is served, each hanging one holds at most its cap', async () => {
    const healthyReceiver = await receiver();
    const healthy = await seedSubscription(database, { url: healthyReceiver.url('/healthy') });
    const hanging = await Promise.all(Array.from({ length: 50 }, () => hangingReceiver(certificate)));
    receivers.push(...hanging.map((h) => h.receiver));
    const stuck: SeededSubscription[] = [];
    for (const h of hanging) stuck.push(await seedSubscription(database, { url: h.receiver.url('/hangs') }));
    const concurrency = 64;
    dispatch({ concurrency, breakerThreshold: 3, breakerCooldownMs: 200 });

    const ids = await offer([healthy, ...stuck], healthy, 10);
    await expectHealthyOnTime(healthy, ids);
    const open = hanging.map((h) => h.receiver.requests.length);
    expect(Math.max(...open)).toBeLessThanOrEqual(PER_SUBSCRIPTION);
    expect(open.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(concurrency);

    for (const h of hanging) h.heal();
    await vi.waitFor(async () => {
      const pending = await database.db
        .selectFrom('event_deliveries')
        .select('id')
        .where('status', '=', 'pending')
        .execute();
      expect(pending).toEqual([]);
    }, WAIT);
    for (const target of stuck) {
      const rows = await rowsOf(target.subscriptionId);
      expect(rows).toHaveLength(10);
      expect(rows.every((row) => row.status === 'delivered' && Number(row.attempts) === 1)).toBe(true);
    }
  });
});
