// Several dispatchers (as several server instances would run them, each with its own connection pool)
// share one outbox: every row is delivered, and no attempt is sent twice. On PostgreSQL this is the
// FOR UPDATE SKIP LOCKED claim; on SQLite the single-statement UPDATE … RETURNING claim.

import { type SelfSignedCertificate, selfSignedCertificate } from '@platform-api/test-support';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { startDispatcher } from '../../src/delivery/dispatcher.js';
import { describeEachDialect } from '../helpers/databases.js';
import {
  enqueue,
  openTestDatabase,
  quietLogger,
  type Receiver,
  removeCertificate,
  seedSubscription,
  startReceiver,
  type TestDatabase,
  testConfig,
} from './support.js';

const ROWS = 150;
const DISPATCHERS = 3;

describeEachDialect('several dispatchers on one %s outbox', (dialect) => {
  let certificate: SelfSignedCertificate;
  let receiver: Receiver;
  let database: TestDatabase;
  const extraHandles: DatabaseHandle[] = [];

  beforeAll(async () => {
    certificate = selfSignedCertificate();
    receiver = await startReceiver(certificate);
    database = await openTestDatabase(dialect);
  });

  afterAll(async () => {
    await Promise.all(extraHandles.map((h) => h.close()));
    await receiver?.close();
    await database?.dispose();
    if (certificate) removeCertificate(certificate);
  });

  it(`deliver ${ROWS} events exactly once between ${DISPATCHERS} instances`, async () => {
    const target = await seedSubscription(database, { url: receiver.url() });
    const ids = new Set<string>();
    for (let i = 0; i < ROWS; i++) ids.add(await enqueue(database, target));
    receiver.respond = () => ({ status: 204, delayMs: 5 });

    const dispatchers = [];
    for (let i = 0; i < DISPATCHERS; i++) {
      const handle = i === 0 ? database : await database.reopen();
      if (handle !== database) extraHandles.push(handle);
      dispatchers.push(
        startDispatcher({
          database: handle,
          // Small batches and a tight poll make the claims race as hard as possible.
          config: testConfig(certificate, { batchSize: 4, pollIntervalMs: 1 }),
          logger: quietLogger,
          clock: systemClock,
          workerId: `instance-${i}`,
        }),
      );
    }
    await vi.waitFor(
      async () => {
        const { count } = await database.db
          .selectFrom('event_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('status', '=', 'delivered')
          .executeTakeFirstOrThrow();
        expect(Number(count)).toBe(ROWS);
      },
      { timeout: 15_000, interval: 20 },
    );
    await Promise.all(dispatchers.map((d) => d.stop()));

    const perId = new Map<string, number>();
    for (const request of receiver.requests) {
      const id = String(request.headers['webhook-id']);
      perId.set(id, (perId.get(id) ?? 0) + 1);
    }
    expect(new Set(perId.keys())).toEqual(ids);
    expect([...perId.entries()].filter(([, n]) => n > 1)).toEqual([]);
    expect(receiver.requests).toHaveLength(ROWS);

    const rows = await database.db.selectFrom('event_deliveries').select(['attempts', 'locked_by']).execute();
    expect(rows.every((row) => Number(row.attempts) === 1)).toBe(true);
    // The work really was shared.
    expect(new Set(rows.map((row) => row.locked_by)).size).toBeGreaterThan(1);
  });
});
