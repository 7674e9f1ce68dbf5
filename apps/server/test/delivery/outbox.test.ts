// The outbox wakes its dispatchers and cleans up after itself: a row inserted by anyone (here a plain
// INSERT, nothing calling a wake-up) is sent at once although the poll interval is an hour; a wake that
// arrives while a batch is being sent is not lost; on PostgreSQL a dispatcher in another process (the
// real server) is woken by an event written through this process's API; and the sweeper deletes finished
// deliveries after the retention period, and expired callback tokens.
import type { ChildProcess } from 'node:child_process';
import { freePort, type SelfSignedCertificate, selfSignedCertificate } from '@platform-api/test-support';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { manualClock } from '../../src/clock.js';
import { startSweeper, sweepExpired } from '../../src/delivery/sweeper.js';
import { describeEachDialect, describePostgres } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  deliveryFixture,
  deliveryRow,
  enqueue,
  quietLogger,
  type Receiver,
  removeCertificate,
  seedSubscription,
  startReceiver,
  startServeProcess,
} from './support.js';

const AN_HOUR = 3_600_000;
const A_DAY = 86_400_000;

describeEachDialect('the outbox on %s', (dialect) => {
  const f = deliveryFixture(dialect);

  /** A dispatcher that only polls once an hour: anything sent sooner was woken by the outbox. */
  const startIdleDispatcher = () => f.startDispatcher({ pollIntervalMs: AN_HOUR });

  it('wakes the dispatcher when a row is inserted, with nothing calling a wake-up', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const dispatcher = startIdleDispatcher();
    // Let the first poll (at start) find nothing and go to sleep for its hour.
    await dispatcher.drain();
    f.receiver.requests.length = 0;
    const id = await enqueue(f.database, target);
    // Long before the hourly poll: only the insert can have woken it.
    await vi.waitFor(() => expect(f.receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([id]), {
      timeout: 60_000,
    });
    await dispatcher.stop();
  });

  it('does not lose a wake that arrives while a batch is being sent', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const dispatcher = startIdleDispatcher();
    await dispatcher.drain();
    f.receiver.requests.length = 0;
    let answerFirst = () => {};
    const firstAnswered = new Promise<void>((resolve) => {
      answerFirst = resolve;
    });
    f.receiver.respond = () => ({ status: 204, until: firstAnswered });
    const first = await enqueue(f.database, target);
    await vi.waitFor(() => expect(f.receiver.requests).toHaveLength(1), { timeout: 60_000 });
    // The first delivery is held in flight: this insert wakes a dispatcher that is not asleep.
    const second = await enqueue(f.database, target);
    f.receiver.respond = () => ({ status: 204 });
    answerFirst();
    await vi.waitFor(
      async () => {
        expect((await deliveryRow(f.database, first)).status).toBe('delivered');
        expect((await deliveryRow(f.database, second)).status).toBe('delivered');
      },
      { timeout: 60_000 },
    );
    await dispatcher.stop();
  });

  it('claims rows with their subscription and integration as they are now, where the claim reads them', async () => {
    const kept = await seedSubscription(f.database, { url: f.receiver.url(), signingSecret: 'whsec_kept' });
    const gone = await seedSubscription(f.database, { url: f.receiver.url() });
    const keptId = await enqueue(f.database, kept);
    const goneId = await enqueue(f.database, gone);
    await f.database.db.deleteFrom('subscriptions').where('id', '=', gone.subscriptionId).execute();
    await f.database.db
      .updateTable('subscriptions')
      .set({ breaker_failures: 2 })
      .where('id', '=', kept.subscriptionId)
      .execute();
    const claimed = await f.database.deliveries.claim({
      workerId: 'worker-read',
      leaseMs: 60_000,
      limit: 10,
      now: Date.now() + 1_000,
    });
    const byId = new Map(claimed.map((row) => [row.id, row]));
    expect(byId.get(keptId)).toMatchObject({
      subscription: {
        id: kept.subscriptionId,
        disabled_at: null,
        breaker_failures: 2,
        breaker_open_until: null,
      },
      integration: { id: kept.integrationId, signing_secret: 'whsec_kept' },
    });
    expect(byId.get(goneId)).toMatchObject({
      subscription: undefined,
      integration: { id: gone.integrationId, signing_secret: null },
    });
  });

  it('writes the outcomes of several attempts in one call, only on rows this worker still holds', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const ids = [
      await enqueue(f.database, target),
      await enqueue(f.database, target),
      await enqueue(f.database, target),
      await enqueue(f.database, target),
    ];
    const now = Date.now() + 1_000;
    const claimed = await f.database.deliveries.claim({
      workerId: 'worker-a',
      leaseMs: 60_000,
      limit: 10,
      now,
    });
    expect(claimed.map((row) => row.id).sort()).toEqual([...ids].sort());
    const [delivered, retried, failed, reclaimed] = ids as [string, string, string, string];
    // Its lease ran out and another worker holds it now: that worker decides.
    await f.database.db
      .updateTable('event_deliveries')
      .set({ locked_by: 'worker-b' })
      .where('id', '=', reclaimed)
      .execute();
    const written = await f.database.deliveries.recordOutcomes(
      'worker-a',
      [
        {
          id: delivered,
          outcome: { status: 'delivered', delivered_at: now, last_status: 204, last_error: null },
        },
        {
          id: retried,
          outcome: {
            status: 'pending',
            next_attempt_at: now + 5_000,
            last_status: 503,
            last_error: 'HTTP 503',
          },
        },
        { id: failed, outcome: { status: 'failed', last_status: 400, last_error: 'HTTP 400 "quoted"' } },
        {
          id: reclaimed,
          outcome: { status: 'delivered', delivered_at: now, last_status: 200, last_error: null },
        },
      ],
      now + 10,
    );
    expect(written).toEqual([true, true, true, false]);
    expect(await deliveryRow(f.database, delivered)).toMatchObject({
      status: 'delivered',
      delivered_at: now,
      finished_at: now + 10,
      last_status: 204,
      last_error: null,
      locked_until: null,
    });
    const retriedRow = await deliveryRow(f.database, retried);
    expect(retriedRow).toMatchObject({
      status: 'pending',
      next_attempt_at: now + 5_000,
      delivered_at: null,
      finished_at: null,
      last_status: 503,
      last_error: 'HTTP 503',
      locked_until: null,
    });
    expect(await deliveryRow(f.database, failed)).toMatchObject({
      status: 'failed',
      finished_at: now + 10,
      last_status: 400,
      last_error: 'HTTP 400 "quoted"',
    });
    expect(await deliveryRow(f.database, reclaimed)).toMatchObject({
      status: 'pending',
      locked_by: 'worker-b',
      last_status: null,
    });
    expect(await f.database.deliveries.recordOutcomes('worker-a', [], now)).toEqual([]);
  });

  it('records when a delivery finished', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const id = await enqueue(f.database, target);
    const clock = manualClock();
    const dispatcher = f.startDispatcher({ pollIntervalMs: AN_HOUR }, { clock });
    await dispatcher.drain();
    const row = await deliveryRow(f.database, id);
    expect(row.status).toBe('delivered');
    expect(row.finished_at).toBe(clock.now());
    await dispatcher.stop();
  });

  it('sweeps finished deliveries after the retention period and expired callback tokens', async () => {
    // What the tests above delivered would be swept too: start from an empty outbox.
    await f.database.db.deleteFrom('event_deliveries').execute();
    await f.database.db.deleteFrom('callback_tokens').execute();
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const now = Date.UTC(2030, 0, 1);
    const retention = 7 * A_DAY;
    const ids = {
      deliveredLongAgo: await enqueue(f.database, target),
      failedLongAgo: await enqueue(f.database, target),
      deliveredRecently: await enqueue(f.database, target),
      pendingLongAgo: await enqueue(f.database, target),
    };
    const finish = (id: string, status: 'delivered' | 'failed' | 'pending', finishedAt: number | null) =>
      f.database.db
        .updateTable('event_deliveries')
        .set({ status, finished_at: finishedAt, created_at: now - 30 * A_DAY })
        .where('id', '=', id)
        .execute();
    await finish(ids.deliveredLongAgo, 'delivered', now - retention);
    await finish(ids.failedLongAgo, 'failed', now - retention - 1);
    await finish(ids.deliveredRecently, 'delivered', now - retention + 1);
    // Not yet finished (a retry far in the future): kept, however old.
    await finish(ids.pendingLongAgo, 'pending', null);
    await f.database.db
      .updateTable('event_deliveries')
      .set({ next_attempt_at: now + A_DAY })
      .where('id', '=', ids.pendingLongAgo)
      .execute();
    const token = (hash: string, expiresAt: number) => ({
      token_hash: hash,
      instance_id: 1,
      integration_id: target.integrationId,
      channel_id: 'c1',
      expires_at: expiresAt,
      created_at: expiresAt - AN_HOUR,
    });
    await f.database.db
      .insertInto('callback_tokens')
      .values([token(`expired-${dialect}`, now), token(`live-${dialect}`, now + 1)])
      .execute();

    const result = await sweepExpired(f.database.db, now, retention);
    expect(result).toEqual({ deliveries: 2, callbackTokens: 1 });
    const left = await f.database.db
      .selectFrom('event_deliveries')
      .select('id')
      .where('id', 'in', Object.values(ids))
      .execute();
    expect(left.map((row) => row.id).sort()).toEqual([ids.deliveredRecently, ids.pendingLongAgo].sort());
    const tokens = await f.database.db
      .selectFrom('callback_tokens')
      .select('token_hash')
      .where('token_hash', 'like', `%-${dialect}`)
      .execute();
    expect(tokens.map((row) => row.token_hash)).toEqual([`live-${dialect}`]);

    // The running sweeper sweeps at start, on the injected clock.
    const clock = manualClock(now + 2);
    const sweeper = startSweeper({
      db: f.database.db,
      clock,
      logger: quietLogger,
      retentionMs: retention,
      intervalMs: AN_HOUR,
    });
    await vi.waitFor(async () => {
      const deliveries = await f.database.db
        .selectFrom('event_deliveries')
        .select('id')
        .where('id', '=', ids.deliveredRecently)
        .execute();
      const callbackTokens = await f.database.db.selectFrom('callback_tokens').select('token_hash').execute();
      expect({ deliveries, callbackTokens }).toEqual({ deliveries: [], callbackTokens: [] });
    });
    await sweeper.stop();
  });
});

describePostgres('two processes on one PostgreSQL', () => {
  let certificate: SelfSignedCertificate;
  let receiver: Receiver;
  let server: TestServer;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    certificate = selfSignedCertificate();
    receiver = await startReceiver(certificate);
    // This process: the API, with no dispatcher of its own.
    server = await startTestServer('postgres', { deliveryEnabled: false });
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await server?.close();
    await receiver?.close();
    if (certificate) removeCertificate(certificate);
  });

  it('a dispatcher in another process delivers an event written here without waiting for its poll', async () => {
    // The other process: the real server, whose dispatcher polls once an hour.
    const other = await startServeProcess(await freePort(), {
      DATABASE_URL: server.config.databaseUrl,
      PLATFORM_DATABASE_SCHEMA: server.config.databaseSchema,
      LOG_LEVEL: 'warn',
      PLATFORM_DELIVERY_POLL_INTERVAL: '1h',
      PLATFORM_WEBHOOK_ALLOWLIST: '127.0.0.1/32,::1',
      PLATFORM_WEBHOOK_CA_FILE: certificate.certFile,
    });
    child = other.child;

    const token = await server.token(['chat']);
    const channel = await server.call('POST', '/v1/chat/channels', {
      token,
      json: { title: 'two-processes', visibility: 'PUBLIC' },
    });
    const integration = await server.call('POST', '/v1/chat/integrations', {
      token,
      json: { name: 'Listener', description: 'Hears the other process', scope: 'PUBLIC_CHANNELS' },
    });
    const subscription = await server.call(
      'POST',
      `/v1/chat/integrations/${integration.body.id}/subscriptions`,
      { token, json: { eventType: 'MESSAGE_POSTED', url: receiver.url('/two-processes') } },
    );
    expect(subscription.status).toBe(200);
    // The other process's first poll ran at its start: from now on only a wake-up makes it look.
    receiver.requests.length = 0;
    const posted = await server.call('POST', `/v1/chat/channels/${channel.body.id}/messages`, {
      token,
      json: { text: 'heard next door' },
    });
    expect(posted.status).toBe(201);
    // Long before its hourly poll: only the notification can have woken it.
    await vi.waitFor(() => expect(receiver.requests).toHaveLength(1), { timeout: 60_000, interval: 10 });
    expect(JSON.parse(receiver.requests[0]?.body ?? '{}')).toMatchObject({
      message: { text: 'heard next door' },
    });
  });
});
