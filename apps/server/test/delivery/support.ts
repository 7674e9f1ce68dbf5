// Shared fixtures of the delivery tests: a throw-away certificate made with the openssl CLI, a real
// local HTTPS receiver, a database per test file (core's helpers: a temp SQLite file or a fresh
// PostgreSQL schema), and helpers to seed integrations, subscriptions and outbox rows.
import { type ChildProcess, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type SelfSignedCertificate, selfSignedCertificate, startProcess } from '@platform-api/test-support';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { loadConfig, type ServerConfig } from '../../src/config.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import type { Dialect } from '../../src/db/schema.js';
import { type Dispatcher, type DispatcherOptions, startDispatcher } from '../../src/delivery/dispatcher.js';
import { freshDatabase } from '../helpers/databases.js';

export const quietLogger = pino({ level: process.env.LOG_LEVEL ?? 'silent' });

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer only once this settles: the test decides when a delivery ends. */
  until?: Promise<unknown>;
  /** Never answer (the client's timeout must fire). */
  hang?: boolean;
}

export interface Receiver {
  port: number;
  /** https://localhost:<port><path> */
  url(path?: string): string;
  requests: ReceivedRequest[];
  /** Decides the reply per request; default 204. */
  respond: (request: ReceivedRequest) => Reply;
  close(): Promise<void>;
}

/** A real HTTPS server on 127.0.0.1 that records every request. */
export async function startReceiver(certificate: SelfSignedCertificate): Promise<Receiver> {
  const hanging = new Set<import('node:http').ServerResponse>();
  const receiver: Receiver = {
    port: 0,
    url: (path = '/hook') => `https://localhost:${receiver.port}${path}`,
    requests: [],
    respond: () => ({ status: 204 }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      receiver.requests.push(request);
      const reply = receiver.respond(request);
      if (reply.hang) {
        hanging.add(res);
        return;
      }
      const send = () => {
        res.writeHead(reply.status, reply.headers);
        res.end();
      };
      if (reply.until) void reply.until.then(send, send);
      else if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

export type { Dialect as DialectName } from '../../src/db/schema.js';

export interface TestDatabase extends DatabaseHandle {
  /** Another connection pool to the same database (a second server instance). */
  reopen(): Promise<DatabaseHandle>;
  dispose(): Promise<void>;
}

/** A fresh database (core's test helper: a temp SQLite file or a new PostgreSQL schema), reopenable. */
export async function openTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  const fresh = await freshDatabase(dialect);
  return {
    ...fresh.database,
    reopen: () =>
      createDatabase({
        dataDir: fresh.dataDir,
        databaseUrl: fresh.databaseUrl,
        databaseSchema: fresh.databaseSchema,
      }),
    dispose: () => fresh.cleanup(),
  };
}

/**
 * The server's real configuration (defaults) with delivery settings suited to fast tests: short retry steps
 * and polls, but a timeout and a lease no loaded machine runs out of (a test that wants one to expire sets
 * its own, or moves a manual clock).
 */
export function testConfig(
  certificate: SelfSignedCertificate,
  delivery: Partial<ServerConfig['delivery']> = {},
): ServerConfig {
  const base = loadConfig(new Map(), {});
  return {
    ...base,
    delivery: {
      ...base.delivery,
      timeoutMs: 30_000,
      retryScheduleMs: [50, 50, 50],
      pollIntervalMs: 25,
      batchSize: 10,
      leaseMs: 60_000,
      allowList: ['127.0.0.1/32', '::1'],
      caCertificates: certificate.cert,
      ...delivery,
    },
  };
}

export interface SeededSubscription {
  integrationId: string;
  subscriptionId: string;
  url: string;
}

/** An integration and one subscription, as core's handlers store them (minimal columns). */
export async function seedSubscription(
  handle: DatabaseHandle,
  options: { url: string; signingSecret?: string | null; headers?: { name: string; value: string }[] },
): Promise<SeededSubscription> {
  const now = Date.now();
  const integrationId = randomUUID();
  const subscriptionId = randomUUID();
  await handle.db
    .insertInto('integrations')
    .values({
      id: integrationId,
      instance_id: 1,
      owner_id: 1,
      name: 'Delivery test',
      description: null,
      scope: 'PUBLIC_CHANNELS',
      channel_ids: null,
      headers: JSON.stringify(options.headers ?? []),
      signing_secret: options.signingSecret ?? null,
      created_at: now,
    })
    .execute();
  await handle.db
    .insertInto('subscriptions')
    .values({
      id: subscriptionId,
      instance_id: 1,
      integration_id: integrationId,
      event_type: 'MESSAGE_POSTED',
      url: options.url,
      slash_command: null,
      disabled_at: null,
      created_at: now,
    })
    .execute();
  return { integrationId, subscriptionId, url: options.url };
}

/** A MESSAGE_POSTED payload shaped like core's (the payload bytes are what gets signed and sent). */
export function samplePayload(text = 'hello'): string {
  return JSON.stringify({
    event: { type: 'MESSAGE_POSTED' },
    owner: { id: 1, displayName: 'Admin', email: 'admin@example.com' },
    organization: { domain: 'dev.example.com' },
    channel: { id: 'c1', parentId: '', title: 'general' },
    // As the outbox stores it: the dispatcher mints the callback token at send time.
    callback: { url: 'http://localhost:3000/v1/chat/bots/message/c1', headers: {} },
    author: { id: 1, displayName: 'Admin', email: 'admin@example.com' },
    message: { text },
  });
}

/** Writes one outbox row for the subscription, due now; returns its id (the webhook-id). */
export async function enqueue(
  handle: DatabaseHandle,
  target: SeededSubscription,
  options: { payload?: string; headers?: { name: string; value: string }[]; url?: string } = {},
): Promise<string> {
  const id = randomUUID();
  const now = Date.now();
  await handle.db
    .insertInto('event_deliveries')
    .values({
      id,
      instance_id: 1,
      integration_id: target.integrationId,
      subscription_id: target.subscriptionId,
      event_type: 'MESSAGE_POSTED',
      url: options.url ?? target.url,
      payload: options.payload ?? samplePayload(),
      headers: JSON.stringify(options.headers ?? []),
      status: 'pending',
      next_attempt_at: now,
      created_at: now,
    })
    .execute();
  return id;
}

export async function deliveryRow(handle: DatabaseHandle, id: string) {
  return handle.db.selectFrom('event_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export function removeCertificate(certificate: SelfSignedCertificate): void {
  rmSync(certificate.dir, { recursive: true, force: true });
}

export interface DeliveryFixture {
  certificate: SelfSignedCertificate;
  receiver: Receiver;
  database: TestDatabase;
  /** A dispatcher on the fixture's database (system clock, quiet logger), stopped after the suite. */
  startDispatcher(
    delivery?: Partial<ServerConfig['delivery']>,
    options?: Partial<Pick<DispatcherOptions, 'clock' | 'random' | 'database' | 'workerId'>>,
  ): Dispatcher;
  /** Stops every dispatcher started so far. */
  stopDispatchers(): Promise<void>;
}

/**
 * Registers a delivery suite's fixtures: a certificate, an HTTPS receiver trusting it and a fresh database,
 * made before the suite's tests and removed after them (the dispatchers it started are stopped first).
 */
export function deliveryFixture(dialect: Dialect): DeliveryFixture {
  const running: Dispatcher[] = [];
  const fixture = {
    startDispatcher(delivery = {}, options = {}) {
      const dispatcher = startDispatcher({
        database: fixture.database,
        config: testConfig(fixture.certificate, delivery),
        logger: quietLogger,
        clock: systemClock,
        ...options,
      });
      running.push(dispatcher);
      return dispatcher;
    },
    async stopDispatchers() {
      await Promise.all(running.splice(0).map((dispatcher) => dispatcher.stop()));
    },
  } as DeliveryFixture;
  beforeAll(async () => {
    fixture.certificate = selfSignedCertificate();
    fixture.receiver = await startReceiver(fixture.certificate);
    fixture.database = await openTestDatabase(dialect);
  });
  afterAll(async () => {
    await fixture.stopDispatchers();
    await fixture.receiver?.close();
    await fixture.database?.dispose();
    if (fixture.certificate) removeCertificate(fixture.certificate);
  });
  return fixture;
}

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ServeProcess {
  child: ChildProcess;
  /** Everything it wrote so far (stdout and stderr). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The real server, `node dist/cli.js serve`, with the given environment; resolves once /healthz answers. */
export async function startServeProcess(
  port: number,
  env: Record<string, string | undefined>,
): Promise<ServeProcess> {
  const cli = join(packageDir, 'dist', 'cli.js');
  if (!existsSync(cli)) {
    // `npm test` builds first (turbo: test dependsOn build); a bare `vitest run` may not have.
    execFileSync(process.execPath, [join(packageDir, 'node_modules', 'tsup', 'dist', 'cli-default.js')], {
      cwd: packageDir,
      stdio: 'ignore',
    });
  }
  let output = '';
  const server = await startProcess('the reference server', process.execPath, [cli, 'serve'], {
    cwd: packageDir,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      PLATFORM_BOOTSTRAP: 'false',
      ...env,
    },
    ready: `http://127.0.0.1:${port}/healthz`,
    onLine: (line) => {
      output += `${line}\n`;
    },
  });
  const { child } = server;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, output: () => output, exited };
}
