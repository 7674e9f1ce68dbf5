// The database goes away and comes back under write load, with the real server (`node dist/cli.js serve`)
// on a real PostgreSQL: the project's own script (scripts/postgres) stops the cluster and starts it again.
// The cluster is this file's own (a private state folder and port): the other suites of `npm test` keep
// theirs. While it is down, writes answer 503 ApiError + Retry-After (never a 500, a hang or a crash),
// /readyz 503 and /healthz 200; once it is back the server serves again without a restart, nothing it
// acknowledged is lost, and deliveries whose outcome could not be recorded meanwhile are recorded once
// the database is back instead of being sent again.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  freePort,
  type SelfSignedCertificate,
  selfSignedCertificate,
  unavailable,
} from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CreatedClient, createClient } from '../src/auth/clients.js';
import { systemClock } from '../src/clock.js';
import { createDatabase } from '../src/db/database.js';
import {
  type Receiver,
  removeCertificate,
  type ServeProcess,
  startReceiver,
  startServeProcess,
} from './delivery/support.js';
import { apiClient } from './helpers/api.js';
import { schemaProblems } from './helpers/spec-validator.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const postgresScript = join(repoRoot, 'scripts', 'postgres', 'postgres.sh');

/** Why the script cannot bring up a cluster here, or undefined when it can. */
function postgresScriptProblem(): string | undefined {
  const installed =
    existsSync('/usr/lib/postgresql') &&
    readdirSync('/usr/lib/postgresql').some((version) =>
      existsSync(join('/usr/lib/postgresql', version, 'bin', 'initdb')),
    );
  if (installed) return undefined;
  const root = process.getuid?.() === 0;
  const apt = existsSync('/usr/bin/apt-get');
  return root && apt
    ? undefined
    : 'PostgreSQL is not installed and cannot be (needs root and apt-get; see scripts/postgres)';
}

const SUITE = 'the server across a PostgreSQL stop and start';
const problem = postgresScriptProblem();

if (problem) unavailable(SUITE, problem);
else describe(SUITE, suite);

interface Seen {
  status: number;
  retryAfter: string | null;
  body: unknown;
  at: number;
}

function suite() {
  const stateDir = mkdtempSync(join(tmpdir(), 'pg-restart-'));
  let postgresEnv: NodeJS.ProcessEnv;
  let databaseUrl: string;
  let certificate: SelfSignedCertificate;
  let receiver: Receiver;
  let server: ServeProcess | undefined;
  let baseUrl: string;
  let client: CreatedClient;

  const postgres = (command: 'up' | 'stop' | 'reset') =>
    execFileSync('bash', [postgresScript, command], { env: postgresEnv, encoding: 'utf8', stdio: 'pipe' });

  beforeAll(async () => {
    postgresEnv = { ...process.env, POSTGRES_STATE_DIR: stateDir, POSTGRES_PORT: String(await freePort()) };
    postgres('up');
    databaseUrl = readFileSync(join(stateDir, 'env'), 'utf8').match(
      /PLATFORM_TEST_DATABASE_URL=(\S+)/,
    )?.[1] as string;
    expect(databaseUrl).toMatch(/^postgres:\/\//);
    certificate = selfSignedCertificate();
    receiver = await startReceiver(certificate);
    const setup = await createDatabase({ dataDir: stateDir, databaseUrl });
    client = await createClient(setup.db, systemClock, { instance: 'acme', scopes: ['chat'], name: 'load' });
    await setup.close();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    server = await startServeProcess(port, {
      DATABASE_URL: databaseUrl,
      PLATFORM_PUBLIC_URL: baseUrl,
      LOG_LEVEL: 'info',
      PLATFORM_RATE_LIMIT: '0',
      PLATFORM_DELIVERY_TIMEOUT: '10s',
      PLATFORM_DELIVERY_POLL_INTERVAL: '100ms',
      PLATFORM_DELIVERY_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms',
      PLATFORM_WEBHOOK_ALLOWLIST: '127.0.0.1/32,::1',
      PLATFORM_WEBHOOK_CA_FILE: certificate.certFile,
    });
  }, 600_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
    }
    await receiver?.close();
    if (certificate) removeCertificate(certificate);
    // Stops the cluster and deletes it with its state folder.
    if (postgresEnv) postgres('reset');
  }, 600_000);

  // Every answer is checked against the spec (helpers/api.ts): a 503 must be the documented one.
  const call = async (method: string, path: string, token?: string, json?: unknown): Promise<Seen> => {
    const answer = await apiClient(baseUrl)(method, path, { token, json });
    return {
      status: answer.status,
      retryAfter: answer.headers.get('retry-after'),
      body: answer.body,
      at: Date.now(),
    };
  };

  it('answers 503 + Retry-After while it is down, serves again once it is back, loses nothing acknowledged', async () => {
    if (!server) throw new Error('no server');
    const tokenResponse = await fetch(`${baseUrl}/oauth/token?grant_type=client_credentials&scope=chat`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
      },
    });
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
    const channel = await call('POST', '/v1/chat/channels', token, { title: 'load', visibility: 'PUBLIC' });
    expect(channel.status).toBe(201);
    const channelId = (channel.body as { id: string }).id;
    const integration = await call('POST', '/v1/chat/integrations', token, {
      name: 'Receiver',
      description: 'Counts deliveries',
      scope: 'PUBLIC_CHANNELS',
    });
    expect(integration.status).toBe(200);
    const integrationId = (integration.body as { id: string }).id;
    const subscription = await call('POST', `/v1/chat/integrations/${integrationId}/subscriptions`, token, {
      eventType: 'MESSAGE_POSTED',
      url: receiver.url('/events'),
    });
    expect(subscription.status).toBe(200);

    // Writers post messages with unique texts until told to stop.
    const WRITERS = 4;
    const acknowledged: string[] = [];
    const seen: Seen[] = [];
    let writing = true;
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      for (let n = 0; writing; n++) {
        const text = `w${writer}-${n}`;
        const result = await call('POST', `/v1/chat/channels/${channelId}/messages`, token, { text });
        seen.push(result);
        if (result.status === 201) acknowledged.push(text);
        // Keep the load steady without spinning while every answer is a quick 503.
        if (result.status === 503) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    const successesSince = (at: number) => seen.filter((s) => s.at >= at && s.status === 201).length;

    await vi.waitFor(() => expect(successesSince(0)).toBeGreaterThanOrEqual(40), { timeout: 120_000 });
    const received = () => receiver.requests.length;
    const stopStarted = Date.now();
    const receivedAtCut = received();
    postgres('stop');
    const stopped = Date.now();
    // Down: answers keep coming (503s), readiness says so, liveness does not.
    await vi.waitFor(
      () => expect(seen.filter((s) => s.at > stopped && s.status === 503).length).toBeGreaterThan(20),
      {
        timeout: 120_000,
      },
    );
    expect((await call('GET', '/readyz')).status).toBe(503);
    expect((await call('GET', '/healthz')).status).toBe(200);
    // Down for a few seconds, as a restart is: the listening connection's reconnects back off meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const receivedWhileDown = received() - receivedAtCut;

    const upStarted = Date.now();
    postgres('up');
    const upDone = Date.now();
    await vi.waitFor(() => expect(successesSince(upDone)).toBeGreaterThanOrEqual(40), { timeout: 120_000 });
    writing = false;
    await Promise.all(writers);
    const firstSuccessAfterUp = seen.find((s) => s.at >= upDone && s.status === 201)?.at ?? Number.NaN;
    await vi.waitFor(async () => expect((await call('GET', '/readyz')).status).toBe(200), {
      timeout: 60_000,
    });

    // Every answer: a success, or the spec's 503 (ApiError + Retry-After). Never a 500.
    const statuses = new Map<number, number>();
    for (const s of seen) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
    const unavailableAnswers = seen.filter((s) => s.status === 503);
    console.info(
      `database restart: statuses ${JSON.stringify(Object.fromEntries(statuses))}; stop took ${stopped - stopStarted} ms, ` +
        `up took ${upDone - upStarted} ms, first success ${firstSuccessAfterUp - upDone} ms after up returned; ` +
        `${receivedWhileDown} deliveries received while down`,
    );
    expect([...statuses.keys()].filter((status) => status !== 201 && status !== 503)).toEqual([]);
    for (const answer of unavailableAnswers) {
      expect(schemaProblems('ApiError', answer.body)).toEqual([]);
      expect(answer.body).toMatchObject({ status: 503 });
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
    // Served again without a restart, within a bound no loaded machine should need.
    expect(firstSuccessAfterUp - upDone).toBeLessThan(60_000);

    // Every acknowledged message reaches the receiver; a delivery is sent twice at most when it was
    // in flight at the cut (its outcome could not be recorded before the lease ran out), and the
    // server records outcomes once the database is back, so there should be none of those either.
    const texts = () =>
      receiver.requests.map(
        (request) => (JSON.parse(request.body) as { message: { text: string } }).message.text,
      );
    await vi.waitFor(() => expect(new Set(texts())).toEqual(new Set(acknowledged)), { timeout: 120_000 });
    const ids = receiver.requests.map((request) => String(request.headers['webhook-id']));
    const duplicates = ids.length - new Set(ids).size;
    console.info(
      `database restart: ${acknowledged.length} acknowledged, ${ids.length} delivered, ${duplicates} twice`,
    );
    expect(duplicates).toBeLessThanOrEqual(receivedWhileDown);

    // The process lived through it, and still stops cleanly.
    expect(server.child.exitCode).toBeNull();
    const output = server.output();
    expect(output).not.toMatch(/unhandled error/);
    // The cause once for the outage (not once per request or pooled connection), and the recovery.
    const faultLines = output.split('\n').filter((line) => line.includes('the database is unreachable'));
    console.info(`database restart: logged ${faultLines.map((line) => JSON.parse(line).msg).join(' | ')}`);
    expect(faultLines).toHaveLength(1);
    await vi.waitFor(() => expect(server?.output()).toMatch(/the database works again/), { timeout: 60_000 });
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  }, 600_000);
}
