// The dispatcher against a real HTTPS receiver, on SQLite and on PostgreSQL (a fresh schema per run).

import { createHash } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { beforeEach, expect, it, vi } from 'vitest';
import { manualClock } from '../../src/clock.js';
import { describeEachDialect } from '../helpers/databases.js';
import { deliveryFixture, deliveryRow, enqueue, samplePayload, seedSubscription } from './support.js';

// A Standard Webhooks secret: whsec_ + base64 of 24 random bytes.
const SIGNING_SECRET = `whsec_${Buffer.from('0123456789abcdefghijklmn').toString('base64')}`;

describeEachDialect('webhook dispatcher on %s', (dialect) => {
  const f = deliveryFixture(dialect);
  const start = f.startDispatcher;

  beforeEach(async () => {
    await f.stopDispatchers();
    // Rows left scheduled by an earlier test must not become due during a later one.
    await f.database.db
      .updateTable('event_deliveries')
      .set({ status: 'failed' })
      .where('status', '=', 'pending')
      .execute();
    f.receiver.requests.length = 0;
    f.receiver.respond = () => ({ status: 204 });
  });

  it('POSTs the payload with configured headers, webhook-id and a verifiable signature', async () => {
    const target = await seedSubscription(f.database, {
      url: f.receiver.url('/events?source=platform'),
      signingSecret: SIGNING_SECRET,
    });
    const payload = samplePayload('signed hello ✓');
    const id = await enqueue(f.database, target, {
      payload,
      headers: [
        { name: 'Authorization', value: 'Bearer integration-secret' },
        { name: 'X-Team', value: 'blue' },
        // Reserved names are the dispatcher's: an integration cannot override them.
        { name: 'webhook-id', value: 'spoofed' },
        { name: 'Content-Type', value: 'text/plain' },
      ],
    });
    const dispatcher = start();
    await dispatcher.drain();

    expect(f.receiver.requests).toHaveLength(1);
    const [request] = f.receiver.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/events?source=platform');
    // The payload as queued, with a callback token minted for this attempt; only its hash is stored.
    const sent = JSON.parse(request?.body ?? '{}');
    const token = sent.callback.headers['x-chat-bot-token'];
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const queued = JSON.parse(payload);
    expect(sent).toEqual({
      ...queued,
      callback: { ...queued.callback, headers: { 'x-chat-bot-token': token } },
    });
    const stored = await f.database.db
      .selectFrom('callback_tokens')
      .selectAll()
      .where('token_hash', '=', createHash('sha256').update(token).digest('hex'))
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ integration_id: target.integrationId, channel_id: 'c1' });
    expect(
      JSON.stringify(await f.database.db.selectFrom('event_deliveries').select('payload').execute()),
    ).not.toContain(token);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers.authorization).toBe('Bearer integration-secret');
    expect(request?.headers['x-team']).toBe('blue');
    expect(request?.headers['webhook-id']).toBe(id);
    const webhookHeaders = {
      'webhook-id': String(request?.headers['webhook-id']),
      'webhook-timestamp': String(request?.headers['webhook-timestamp']),
      'webhook-signature': String(request?.headers['webhook-signature']),
    };
    expect(Math.abs(Number(webhookHeaders['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(new Webhook(SIGNING_SECRET).verify(request?.body ?? '', webhookHeaders)).toEqual(sent);
    // A tampered body does not verify.
    expect(() => new Webhook(SIGNING_SECRET).verify(`${request?.body} `, webhookHeaders)).toThrow();

    const row = await deliveryRow(f.database, id);
    expect(row).toMatchObject({
      status: 'delivered',
      attempts: 1,
      last_status: 204,
      last_error: null,
      locked_until: null,
    });
    expect(row.delivered_at).toBeGreaterThan(0);
  });

  it('sends no signature headers when the integration has no signing secret', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    await enqueue(f.database, target);
    await start().drain();
    expect(f.receiver.requests).toHaveLength(1);
    expect(f.receiver.requests[0]?.headers['webhook-id']).toBeTruthy();
    expect(f.receiver.requests[0]?.headers['webhook-signature']).toBeUndefined();
    expect(f.receiver.requests[0]?.headers['webhook-timestamp']).toBeUndefined();
  });

  it('retries failures with the same webhook-id until a 2xx', async () => {
    const target = await seedSubscription(f.database, {
      url: f.receiver.url(),
      signingSecret: SIGNING_SECRET,
    });
    const id = await enqueue(f.database, target);
    let calls = 0;
    f.receiver.respond = () => {
      calls += 1;
      return calls === 1 ? { status: 500 } : calls === 2 ? { status: 404 } : { status: 202 };
    };
    start({ retryScheduleMs: [30, 30, 30] });
    await vi.waitFor(async () => expect((await deliveryRow(f.database, id)).status).toBe('delivered'), {
      timeout: 60_000,
    });
    expect(f.receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([id, id, id]);
    // Every attempt is signed afresh and verifies.
    for (const request of f.receiver.requests) {
      new Webhook(SIGNING_SECRET).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      });
    }
    expect(await deliveryRow(f.database, id)).toMatchObject({
      status: 'delivered',
      attempts: 3,
      last_status: 202,
    });
  });

  it('marks a delivery failed after the last step of the schedule', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const id = await enqueue(f.database, target);
    f.receiver.respond = () => ({ status: 500 });
    start({ retryScheduleMs: [20, 20] });
    await vi.waitFor(async () => expect((await deliveryRow(f.database, id)).status).toBe('failed'), {
      timeout: 60_000,
    });
    expect(f.receiver.requests).toHaveLength(3); // the first attempt and two retries
    expect(await deliveryRow(f.database, id)).toMatchObject({
      attempts: 3,
      last_status: 500,
      last_error: 'HTTP 500',
    });
  });

  it('waits between attempts for a jittered delay within the schedule step', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const id = await enqueue(f.database, target);
    f.receiver.respond = () => ({ status: 503 });
    const clock = manualClock();
    // random() = 0.5: the retry waits half of the 60 s step.
    await start({ retryScheduleMs: [60_000] }, { random: () => 0.5, clock }).drain();
    const row = await deliveryRow(f.database, id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, locked_until: null });
    expect(row.next_attempt_at).toBe(clock.now() + 30_000);
  });

  it('honours Retry-After (seconds and HTTP-date) on 429 and 503, capped at the longest step', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const seconds = await enqueue(f.database, target, { payload: samplePayload('seconds') });
    const date = await enqueue(f.database, target, { payload: samplePayload('date') });
    const huge = await enqueue(f.database, target, { payload: samplePayload('huge') });
    // Whole seconds, so that the HTTP-date (1 s resolution) is exactly 8 s ahead.
    const clock = manualClock(Math.ceil(Date.now() / 1000) * 1000);
    f.receiver.respond = (request) => {
      const text = (JSON.parse(request.body) as { message: { text: string } }).message.text;
      if (text === 'seconds') return { status: 429, headers: { 'retry-after': '3' } };
      if (text === 'date')
        return { status: 503, headers: { 'retry-after': new Date(clock.now() + 8_000).toUTCString() } };
      return { status: 429, headers: { 'retry-after': '86400' } };
    };
    const dispatcher = start({ retryScheduleMs: [10, 20_000] }, { random: () => 0, clock });
    await dispatcher.drain();
    await dispatcher.stop();
    const delay = async (id: string) => (await deliveryRow(f.database, id)).next_attempt_at - clock.now();
    expect(await delay(seconds)).toBe(3_000);
    expect(await delay(date)).toBe(8_000);
    expect(await delay(huge)).toBe(20_000); // the longest step of the schedule
    expect(f.receiver.requests).toHaveLength(3);
  });

  it('on 410 Gone disables the subscription and fails its pending deliveries', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const first = await enqueue(f.database, target);
    const queued = await enqueue(f.database, target);
    // The second row is not due yet, so only the first is sent.
    await f.database.db
      .updateTable('event_deliveries')
      .set({ next_attempt_at: Date.now() + 60_000 })
      .where('id', '=', queued)
      .execute();
    f.receiver.respond = () => ({ status: 410 });
    await start().drain();
    expect(f.receiver.requests).toHaveLength(1);
    expect(await deliveryRow(f.database, first)).toMatchObject({ status: 'failed', last_status: 410 });
    expect(await deliveryRow(f.database, queued)).toMatchObject({ status: 'failed', attempts: 0 });
    expect((await deliveryRow(f.database, queued)).last_error).toContain('410');
    const subscription = await f.database.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', target.subscriptionId)
      .executeTakeFirstOrThrow();
    expect(subscription.disabled_at).toBeGreaterThan(0);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url('/moved') });
    const id = await enqueue(f.database, target);
    f.receiver.respond = (request) =>
      request.path === '/moved'
        ? { status: 307, headers: { location: f.receiver.url('/elsewhere') } }
        : { status: 204 };
    await start({ retryScheduleMs: [60_000] }).drain();
    expect(f.receiver.requests.map((r) => r.path)).toEqual(['/moved']);
    const row = await deliveryRow(f.database, id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status: 307 });
    expect(row.last_error).toContain('redirect not followed');
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const id = await enqueue(f.database, target);
    f.receiver.respond = () => ({ hang: true, status: 200 });
    await start({ timeoutMs: 300, retryScheduleMs: [60_000] }).drain();
    const row = await deliveryRow(f.database, id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status: null });
    expect(row.last_error).toBe('timed out after 300 ms');
  });

  it('refuses at delivery time a target whose address is not allowed (checked on the connected address)', async () => {
    // Stored as if it had passed the subscription check; "localhost" resolves to a loopback address.
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const byName = await enqueue(f.database, target);
    const byAddress = await enqueue(f.database, target, { url: `https://127.0.0.1:${f.receiver.port}/hook` });
    const mapped = await enqueue(f.database, target, {
      url: `https://[::ffff:127.0.0.1]:${f.receiver.port}/hook`,
    });
    await start({ allowList: [], retryScheduleMs: [60_000] }).drain();
    expect(f.receiver.requests).toHaveLength(0);
    for (const id of [byName, byAddress, mapped]) {
      const row = await deliveryRow(f.database, id);
      expect(row.status).toBe('pending');
      expect(row.last_error).toMatch(/^refused: .*not a globally reachable address/);
    }
    expect((await deliveryRow(f.database, byName)).last_error).toContain('localhost resolves to');
  });

  it('delivers to a non-global host that is allow-listed by name', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const id = await enqueue(f.database, target);
    await start({ allowList: ['LOCALHOST'] }).drain();
    expect(f.receiver.requests).toHaveLength(1);
    expect(await deliveryRow(f.database, id)).toMatchObject({ status: 'delivered' });
  });

  it('fails at once, without retries, a delivery whose stored headers cannot be sent', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const id = await enqueue(f.database, target, {
      headers: [{ name: 'X-Bad', value: 'line\r\nInjected: yes' }],
    });
    await start().drain();
    expect(f.receiver.requests).toHaveLength(0);
    const row = await deliveryRow(f.database, id);
    expect(row).toMatchObject({ status: 'failed', attempts: 1 });
    expect(row.last_error).toContain('cannot send request');
  });

  it('sends nothing for a deleted subscription or integration', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const id = await enqueue(f.database, target);
    await f.database.db.deleteFrom('subscriptions').where('id', '=', target.subscriptionId).execute();
    await start().drain();
    expect(f.receiver.requests).toHaveLength(0);
    expect(await deliveryRow(f.database, id)).toMatchObject({
      status: 'failed',
      last_error: 'subscription deleted',
    });
  });

  it('reclaims a row whose lease expired (a crashed dispatcher) and delivers it', async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const id = await enqueue(f.database, target);
    const clock = manualClock();
    await f.database.db
      .updateTable('event_deliveries')
      .set({ locked_by: 'crashed-worker', locked_until: clock.now() + 60_000, attempts: 1 })
      .where('id', '=', id)
      .execute();
    const dispatcher = start({ pollIntervalMs: 3_600_000 }, { clock });
    await dispatcher.drain();
    expect(f.receiver.requests).toHaveLength(0); // still leased
    clock.advance(60_000);
    await dispatcher.drain();
    expect(await deliveryRow(f.database, id)).toMatchObject({ status: 'delivered' });
    expect(f.receiver.requests).toHaveLength(1);
    expect(await deliveryRow(f.database, id)).toMatchObject({ attempts: 2 });
  });

  /**
   * A started dispatcher with three deliveries in flight, each held by the receiver until the test calls
   * `answer()`: the test, not the machine's speed, decides what happens while they are in flight.
   */
  async function threeInFlight() {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const ids = await Promise.all([1, 2, 3].map(() => enqueue(f.database, target)));
    let answer = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    f.receiver.respond = () => ({ status: 200, until: answered });
    const dispatcher = start();
    await vi.waitFor(() => expect(f.receiver.requests).toHaveLength(3), { timeout: 60_000 });
    return { target, ids, dispatcher, answer };
  }

  it('stop() waits for in-flight deliveries and records them', async () => {
    const { target, ids, dispatcher, answer } = await threeInFlight();
    let stopped = false;
    const stopping = dispatcher.stop().then(() => {
      stopped = true;
    });
    // stop() is still waiting while the receiver holds the deliveries, however long that takes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stopped).toBe(false);
    for (const id of ids) expect(await deliveryRow(f.database, id)).toMatchObject({ status: 'pending' });
    answer();
    await stopping;
    for (const id of ids)
      expect(await deliveryRow(f.database, id)).toMatchObject({ status: 'delivered', locked_until: null });
    // After stop nothing more is claimed.
    const later = await enqueue(f.database, target);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await deliveryRow(f.database, later)).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('records outcomes finishing together, but not one whose row another dispatcher took meanwhile', async () => {
    const { ids, dispatcher, answer } = await threeInFlight();
    const [first, taken, third] = ids as [string, string, string];
    // As if this dispatcher's lease had run out and another had claimed the row.
    await f.database.db
      .updateTable('event_deliveries')
      .set({ locked_by: 'other-worker' })
      .where('id', '=', taken)
      .execute();
    answer();
    await dispatcher.stop();
    for (const id of [first, third])
      expect(await deliveryRow(f.database, id)).toMatchObject({ status: 'delivered', last_status: 200 });
    expect(await deliveryRow(f.database, taken)).toMatchObject({
      status: 'pending',
      locked_by: 'other-worker',
      last_status: null,
    });
  });

  it('refuses a lease that is not longer than the timeout', () => {
    expect(() => start({ leaseMs: 1000, timeoutMs: 1000 })).toThrow(/lease/);
  });
});
