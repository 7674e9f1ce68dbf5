// At-least-once across crashes, with the real server: `node dist/cli.js serve` is killed with SIGKILL
// while deliveries are in flight, started again on the same SQLite file, and every event still
// arrives (counted as distinct webhook-ids at the receiver). Also: SIGTERM lets in-flight deliveries finish.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type SelfSignedCertificate, selfSignedCertificate } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import {
  enqueue,
  type Receiver,
  removeCertificate,
  type SeededSubscription,
  type ServeProcess,
  seedSubscription,
  startReceiver,
  startServeProcess,
} from './support.js';

describe('delivery across a kill -9 of the real server', () => {
  let certificate: SelfSignedCertificate;
  let receiver: Receiver;
  let dataDir: string;
  let port: number;
  let database: DatabaseHandle;
  let target: SeededSubscription;
  const children: ChildProcess[] = [];

  const startServer = async (env: Record<string, string> = {}): Promise<ServeProcess> => {
    const server = await startServeProcess(port, {
      PLATFORM_DATA_DIR: dataDir,
      PLATFORM_PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
      PLATFORM_DELIVERY_TIMEOUT: '5s',
      PLATFORM_DELIVERY_LEASE: '6s',
      PLATFORM_DELIVERY_POLL_INTERVAL: '50ms',
      PLATFORM_DELIVERY_RETRY_SCHEDULE: '100ms,100ms,100ms',
      PLATFORM_WEBHOOK_ALLOWLIST: '127.0.0.1/32,::1',
      PLATFORM_WEBHOOK_CA_FILE: certificate.certFile,
      ...env,
    });
    children.push(server.child);
    return server;
  };

  beforeAll(async () => {
    certificate = selfSignedCertificate();
    receiver = await startReceiver(certificate);
    dataDir = mkdtempSync(join(tmpdir(), 'delivery-crash-'));
    port = await freePort();
    // The test's own connection to the server's SQLite file (WAL: both may read and write).
    database = await createDatabase({ dataDir, databaseUrl: undefined });
    target = await seedSubscription(database, { url: receiver.url() });
  });

  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await database?.close();
    await receiver?.close();
    if (certificate) removeCertificate(certificate);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers every event after a SIGKILL in the middle of deliveries and a restart', async () => {
    const EVENTS = 30;
    const ids = new Set<string>();
    for (let i = 0; i < EVENTS; i++) ids.add(await enqueue(database, target));
    // The receiver holds the first server's deliveries: a batch is in flight when the process dies.
    receiver.respond = () => ({ status: 204, until: new Promise(() => {}) });

    const first = await startServer();
    await vi.waitFor(() => expect(receiver.requests.length).toBeGreaterThanOrEqual(5), { timeout: 120_000 });
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const leased = await database.db
      .selectFrom('event_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('locked_until', 'is not', null)
      .execute();
    expect(leased.length).toBeGreaterThan(0); // claimed by the dead process, waiting for the lease to expire

    receiver.respond = () => ({ status: 204 });
    const second = await startServer();
    await vi
      .waitFor(
        async () => {
          const rows = await database.db.selectFrom('event_deliveries').select('status').execute();
          expect(rows.filter((r) => r.status === 'delivered')).toHaveLength(EVENTS);
        },
        { timeout: 120_000, interval: 20 },
      )
      .catch((error: Error) => {
        throw new Error(`${error.message}\nserver output:\n${second.output()}`);
      });

    const received = receiver.requests.map((r) => String(r.headers['webhook-id']));
    expect(new Set(received)).toEqual(ids);
    // The attempts cut off by the kill were sent again: at least once, never lost.
    expect(received.length).toBeGreaterThan(EVENTS);

    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 600_000);

  it('on SIGTERM finishes the deliveries in flight before exiting', async () => {
    // No delivery may time out or lose its lease here, however slow the machine.
    const server = await startServer({ PLATFORM_DELIVERY_TIMEOUT: '5m', PLATFORM_DELIVERY_LEASE: '10m' });
    receiver.requests.length = 0;
    let answer = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    receiver.respond = () => ({ status: 200, until: answered });
    const ids = await Promise.all([1, 2, 3].map(() => enqueue(database, target)));
    await vi.waitFor(() => expect(receiver.requests).toHaveLength(3), { timeout: 120_000 });
    server.child.kill('SIGTERM');
    // The server waits for the deliveries the receiver still holds.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.child.exitCode).toBeNull();
    answer();
    expect((await server.exited).code).toBe(0);
    const rows = await database.db
      .selectFrom('event_deliveries')
      .selectAll()
      .where('id', 'in', ids)
      .execute();
    expect(rows.map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(receiver.requests).toHaveLength(3);
  }, 600_000);
});
