import { afterAll, expect, it, vi } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { describeEachDialect } from '../helpers/databases.js';
import { deliveryFixture, enqueue, seedSubscription } from './support.js';

const ROWS = 150;
const DISPATCHERS = 3;

describeEachDialect('several dispatchers on one %s outbox', (dialect) => {
  const f = deliveryFixture(dialect);
  const extraHandles: DatabaseHandle[] = [];

  afterAll(async () => {
    await Promise.all(extraHandles.map((h) => h.close()));
  });

  it(`deliver ${ROWS} events exactly once between ${DISPATCHERS} instances`, async () => {
    const target = await seedSubscription(f.database, { url: f.receiver.url() });
    const ids = new Set<string>();
    for (let i = 0; i < ROWS; i++) ids.add(await enqueue(f.database, target));
    f.receiver.respond = () => ({ status: 204, delayMs: 5 });

    const dispatchers = [];
    for (let i = 0; i < DISPATCHERS; i++) {
      const handle = i === 0 ? f.database : await f.database.reopen();
      if (handle !== f.database) extraHandles.push(handle);
      dispatchers.push(
        // Small batches and a tight poll make the claims race as hard as possible. A small window keeps the
        // TLS handshakes of 3 × 64 new connections (client and receiver in this one process) from
        // starving the event loop past the delivery timeout.
        f.startDispatcher(
          { batchSize: 4, concurrency: 8, pollIntervalMs: 1 },
          { database: handle, workerId: `instance-${i}` },
        ),
      );
    }
    await vi.waitFor(
      async () => {
        const { count } = await f.database.db
          .selectFrom('event_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('status', '=', 'delivered')
          .executeTakeFirstOrThrow();
        expect(Number(count)).toBe(ROWS);
      },
      { timeout: 120_000, interval: 20 },
    );
    await Promise.all(dispatchers.map((d) => d.stop()));

    const perId = new Map<string, number>();
    for (const request of f.receiver.requests) {
      const id = String(request.headers['webhook-id']);
      perId.set(id, (perId.get(id) ?? 0) + 1);
    }
    expect(new Set(perId.keys())).toEqual(ids);
    expect([...perId.entries()].filter(([, n]) => n > 1)).toEqual([]);
    expect(f.receiver.requests).toHaveLength(ROWS);

    const rows = await f.database.db
      .selectFrom('event_deliveries')
      .select(['attempts', 'locked_by'])
      .execute();
    expect(rows.every((row) => Number(row.attempts) === 1)).toBe(true);
    // The work really was shared.
    expect(new Set(rows.map((row) => row.locked_by)).size).toBeGreaterThan(1);
  });
});
