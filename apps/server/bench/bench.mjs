// `npm run bench`: the reference server's throughput beside bare node:http (the physical limit of one Node
// process on this machine) and the Prism mock, measured in one run, on SQLite and on PostgreSQL; then
// event delivery, the TypeScript client's overhead, cold start and memory; then the goals of issue 10
// beside what was measured. Ratios are what compares across machines; docs/guides/benchmarks.md says
// what each figure measures.
//
//   npm run bench -- [--duration 8] [--connections 32] [--memory-seconds 60] [--events 5000]
//                    [--databases sqlite,postgresql] [--generator wrk|autocannon] [--only TEXT[|TEXT…]]
//                    [--profile DIR] [--log-level silent] [--rate-limit 0] [--quick] [--help]
//
// --only picks scenarios by part of their name (`--only 'healthz|GET /v1/users/{id}'`); --profile writes the
// reference server's CPU profile into DIR (read it with top-self-time.mjs); --log-level and --rate-limit
// turn on the server's request logging (to /dev/null) and its rate limiter (give a limit the run cannot
// reach, e.g. 1000000000), off by default, to measure what each costs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { selfSignedCertificate } from '@platform-api/test-support';
import {
  compareClient,
  generatorName,
  pickGenerator,
  postStamped,
  runLoad,
  UNIQUE,
  watchOthers,
} from './load.mjs';
import {
  cpuSeconds,
  createClient,
  providePostgres,
  query,
  referenceEnv,
  rssKiB,
  startBare,
  startBareFastify,
  startFailingReceiver,
  startPrism,
  startReceiver,
  startReference,
  stopAll,
} from './servers.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string' },
    connections: { type: 'string', default: '32' },
    'memory-seconds': { type: 'string' },
    events: { type: 'string' },
    databases: { type: 'string', default: 'sqlite,postgresql' },
    generator: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'log-level': { type: 'string', default: 'silent' },
    'rate-limit': { type: 'string', default: '0' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  // The usage is this file's opening comment.
  const head = readFileSync(new URL(import.meta.url), 'utf8').split('\nimport ')[0];
  console.log(head.replace(/^\/\/ ?/gm, ''));
  process.exit(0);
}
const quick = values.quick;
// `--only event` / `--only client`: that measurement alone; any other --only, the scenarios whose names
// contain it (several, separated by `|`: `--only 'healthz|users/{id}'`).
const wanted = (name) => !values.only || values.only.split('|').some((part) => name.includes(part));
const positive = (name, text) => {
  const n = Number(text);
  if (!(n > 0)) throw new Error(`--${name} must be a positive number, got "${text}"`);
  return n;
};
const duration = positive('duration', values.duration ?? (quick ? '1' : '8'));
const warmup = quick ? 1 : 2;
const connections = positive('connections', values.connections);
const memorySeconds = positive('memory-seconds', values['memory-seconds'] ?? (quick ? '5' : '60'));
const eventCount = positive('events', values.events ?? (quick ? '200' : '5000'));
const coldStarts = 5;
const generator = pickGenerator(values.generator);
const profileDir = values.profile && resolve(values.profile);
const progress = (text) => console.error(`▶ ${text}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// --- cleanup, however the run ends -------------------------------------------------------------------------
const cleanups = new Set();
/** Registers `fn` to run at the end (or on Ctrl-C); returns it, to run it earlier (once). */
function onCleanup(fn) {
  const entry = async () => {
    if (!cleanups.delete(entry)) return;
    await fn();
  };
  cleanups.add(entry);
  return entry;
}
async function cleanUp() {
  await stopAll();
  for (const entry of [...cleanups].reverse()) {
    await entry().catch((error) => console.error(`cleanup: ${error.message}`));
  }
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, async () => {
    console.error(`\n*** ${signal}: stopping what the benchmark started ***`);
    await cleanUp();
    process.exit(130);
  });
}

// --- measuring -------------------------------------------------------------------------------------------------
/**
 * A warm-up (discarded), then the measured run. With the server's `pid`, also the CPU time it spent per
 * request (µs): unlike req/s, barely moved by other jobs on a shared machine, so the figure to compare
 * layers by.
 */
async function measure(name, target, context = '', pid = undefined, seconds = duration) {
  progress(`${context}${name}`);
  await runLoad(target, { generator, duration: warmup, connections });
  const before = pid && cpuSeconds(pid);
  const result = await runLoad(target, { generator, duration: seconds, connections });
  const cpuMicros = pid ? ((cpuSeconds(pid) - before) / result.requests) * 1e6 : Number.NaN;
  return { name, ...result, cpuMicros };
}

const quantile = (sorted, q) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
const median = (numbers) =>
  quantile(
    [...numbers].sort((a, b) => a - b),
    0.5,
  );

/** The HTTPS receiver's deliveries of the current phase: webhook-id → latency (send stamp → arrival). */
let phase = { received: new Map(), lastAt: 0 };
const certificate = selfSignedCertificate();
onCleanup(() => certificate.remove());
const receiver = await startReceiver(certificate, ({ headers, body, at }) => {
  const stamp = Number(/bench-event (\d+)/.exec(body)?.[1]);
  if (!Number.isFinite(stamp)) return;
  phase.received.set(headers['webhook-id'], at - stamp);
  phase.lastAt = Math.max(phase.lastAt, at);
});
onCleanup(() => receiver.close());

/** Calls the reference server's API: the parsed JSON (or text) of a 2xx, else throws. */
function apiOf(url, authorization) {
  return async (method, path, { json, body, type } = {}) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization,
        ...(json ? { 'content-type': 'application/json' } : type && { 'content-type': type }),
      },
      body: json ? JSON.stringify(json) : body,
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  };
}

/** What the scenarios need: ≥ 50 users, a dataset of 10,000 rows, a channel whose messages are delivered. */
async function seed(api, label) {
  const userIds = [];
  for (let batch = 0; batch < 6; batch++) {
    const users = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api('POST', '/v1/users', {
          json: {
            name: `Seed ${batch * 10 + i}`,
            email: `seed-${batch * 10 + i}@bench.example.com`,
            role: 'Participant',
          },
        }),
      ),
    );
    userIds.push(...users.map((user) => user.id));
  }
  const dataset = await api('POST', '/v1/datasets', {
    json: {
      name: 'Benchmark rows',
      schema: {
        columns: [
          { type: 'STRING', name: 'name' },
          { type: 'LONG', name: 'count' },
          { type: 'DOUBLE', name: 'ratio' },
          { type: 'DATE', name: 'day' },
        ],
      },
    },
  });
  const rows = Array.from(
    { length: 10_000 },
    (_, i) => `Row ${i},${i},${(i / 7).toFixed(4)},2026-${String((i % 12) + 1).padStart(2, '0')}-15\n`,
  );
  await api('PUT', `/v1/datasets/${dataset.id}/data`, { body: rows.join(''), type: 'text/csv' });
  const channel = await api('POST', '/v1/chat/channels', { json: { title: 'bench', visibility: 'PUBLIC' } });
  const integration = await api('POST', '/v1/chat/integrations', {
    json: { name: 'Benchmark receiver', scope: 'PUBLIC_CHANNELS' },
  });
  await api('POST', `/v1/chat/integrations/${integration.id}/subscriptions`, {
    json: { eventType: 'MESSAGE_POSTED', url: receiver.url(`/events/${label}`) },
  });
  return { userIds, datasetId: dataset.id, channelId: channel.id };
}

/**
 * Posts chat messages with `post`, waits for their deliveries (30 s without one, or `maxWaitMs` after the
 * last post, ends the wait).
 */
async function deliver(post, { maxWaitMs = Number.POSITIVE_INFINITY } = {}) {
  phase = { received: new Map(), lastAt: 0 };
  const others = watchOthers();
  const sent = await post();
  const posted = Date.now();
  let seen = -1;
  let quietSince = Date.now();
  while (
    phase.received.size < sent.ok &&
    Date.now() - quietSince < 30_000 &&
    Date.now() - posted < maxWaitMs
  ) {
    if (phase.received.size !== seen) [seen, quietSince] = [phase.received.size, Date.now()];
    await sleep(20);
  }
  const latencies = [...phase.received.values()].sort((a, b) => a - b);
  return {
    posted: sent.ok,
    failed: sent.non2xx + sent.errors,
    received: phase.received.size,
    // From the first message sent to the last delivery received.
    perSecond: phase.received.size > 0 ? phase.received.size / ((phase.lastAt - sent.startedAt) / 1000) : 0,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    others: others(),
  };
}

async function eventDelivery(url, authorization, channelId) {
  const target = {
    url: `${url}/v1/chat/channels/${channelId}/messages`,
    headers: { authorization, 'content-type': 'application/json' },
    body: `{"text":"bench-event ${UNIQUE}"}`,
  };
  progress(`event delivery: warm-up, then ${eventCount} messages as fast as they are taken`);
  await deliver(() => postStamped(target, { connections, amount: Math.min(200, eventCount) }));
  const full = await deliver(() => postStamped(target, { connections, amount: eventCount }));
  const rate = Math.max(1, Math.round(full.perSecond / 2));
  progress(`event delivery: ${rate} messages/s for ${duration} s`);
  const half = await deliver(() => postStamped(target, { connections, rate, duration }));
  return { full, half: { ...half, rate } };
}

/** Events per second offered in the isolation scenario (the rate of the measurement in issue 26). */
const ISOLATION_RATE = 20;
/** How long the isolation scenario waits for the healthy deliveries after the last message. */
const ISOLATION_WAIT_MS = 60_000;

/**
 * Issue 26: the healthy receiver's latency while other subscriptions' receivers fail — (a) one that never
 * answers and one that answers 500 at once, (b) 50 that never answer — at 20 events/s for `--duration`
 * seconds, open loop. The failing subscriptions belong to an integration of their own, deleted afterwards.
 */
async function eventIsolation(url, authorization, channelId) {
  const api = apiOf(url, authorization);
  const integration = await api('POST', '/v1/chat/integrations', {
    json: { name: 'Failing receivers', scope: 'PUBLIC_CHANNELS' },
  });
  const subscriptions = `/v1/chat/integrations/${integration.id}/subscriptions`;
  const target = {
    url: `${url}/v1/chat/channels/${channelId}/messages`,
    headers: { authorization, 'content-type': 'application/json' },
    body: `{"text":"bench-event ${UNIQUE}"}`,
  };
  const variants = [
    ['one hanging + one HTTP 500 receiver', ['hang', 500]],
    ['50 hanging receivers', Array.from({ length: 50 }, () => 'hang')],
  ];
  const results = [];
  for (const [name, behaviours] of variants) {
    const receivers = await Promise.all(behaviours.map((b) => startFailingReceiver(certificate, b)));
    const closeReceivers = onCleanup(() => Promise.all(receivers.map((r) => r.close())));
    const ids = [];
    for (const [i, failing] of receivers.entries()) {
      const json = { eventType: 'MESSAGE_POSTED', url: failing.url(`/failing/${i}`) };
      ids.push((await api('POST', subscriptions, { json })).id);
    }
    progress(`event isolation: ${name}, ${ISOLATION_RATE} messages/s for ${duration} s`);
    // Before issue 26 the healthy deliveries trickled in for many minutes: a minute is enough to tell.
    const healthy = await deliver(
      () => postStamped(target, { connections, rate: ISOLATION_RATE, duration }),
      { maxWaitMs: ISOLATION_WAIT_MS },
    );
    // Deliveries that never came are later than any that did: no percentile then.
    if (healthy.received < healthy.posted) healthy.p99 = Number.POSITIVE_INFINITY;
    const list = await api('GET', subscriptions);
    const breakers = list.subscriptions.map((s) => s.circuitBreaker?.state ?? 'not reported');
    for (const id of ids) await api('DELETE', `${subscriptions}/${id}`);
    await closeReceivers();
    results.push({
      name,
      healthy,
      failingRequests: receivers.reduce((sum, r) => sum + r.stats.requests, 0),
      maxOpenPerReceiver: Math.max(...receivers.map((r) => r.stats.maxOpen)),
      openBreakers: breakers.filter((state) => state !== 'CLOSED').length,
      receivers: receivers.length,
    });
  }
  await api('DELETE', `/v1/chat/integrations/${integration.id}`);
  return results;
}

/**
 * bare node:http, the ceiling of each database's table: measured before its scenarios and after them, the
 * better run counts (something else on the machine can only make it slower).
 */
async function measureBare(context) {
  const server = await startBare();
  try {
    return await measure('bare `node:http`, small JSON object', { url: server.url }, context, server.pid);
  } finally {
    await server.stop();
  }
}

/** Rounds of bare Fastify and `GET /healthz` in turn that count, after one that warms both up. */
const FRAMEWORK_ROUNDS = 5;
/**
 * Seconds each is driven in a round, after its warm-up: short enough that neither server idles 8 s
 * between its runs. After 8 s of little allocation V8's memory reducer shrinks a heap's young generation,
 * and for the next seconds of load the process scavenges several times as often (our server: 4×, about
 * 2 µs more a request; docs/guides/benchmarks.md): a server measured just after idling pays that.
 */
const FRAMEWORK_ROUND_SECONDS = Math.min(duration, 3);

/**
 * What our set-up adds to a Fastify route: one bare Fastify route (Fastify's defaults, the same small
 * object) and our `GET /healthz`, driven in turn, which goes first alternating. On a shared VM the CPU a
 * request costs drifts by ±15 % within seconds; driven in turn, both sides of the ratio see the same
 * drift, which one run each (minutes apart) does not give them. Resolves with each one's counted rounds
 * combined, and the rounds.
 */
async function measureFrameworkShare(fastify, server, context) {
  const fastifyRun = () =>
    measure(
      'bare Fastify route, same object',
      { url: fastify.url },
      context,
      fastify.pid,
      FRAMEWORK_ROUND_SECONDS,
    );
  const healthRun = () =>
    measure('GET /healthz', { url: `${server.url}/healthz` }, context, server.pid, FRAMEWORK_ROUND_SECONDS);
  const rounds = [];
  for (let round = 0; round <= FRAMEWORK_ROUNDS; round++) {
    let measured;
    if (round % 2 === 0) {
      const bare = await fastifyRun();
      measured = { fastify: bare, health: await healthRun() };
    } else {
      const ours = await healthRun();
      measured = { fastify: await fastifyRun(), health: ours };
    }
    if (round > 0) rounds.push(measured);
  }
  return {
    fastify: combinedRuns(rounds.map((r) => r.fastify)),
    health: combinedRuns(rounds.map((r) => r.health)),
    rounds,
  };
}

/** Runs of one scenario as one: their requests and CPU summed, their latencies' medians, the most others took. */
function combinedRuns(runs) {
  const sum = (key) => runs.reduce((total, run) => total + run[key], 0);
  const requests = sum('requests');
  return {
    name: runs[0].name,
    requests,
    seconds: sum('seconds'),
    rps: requests / sum('seconds'),
    cpuMicros: runs.reduce((total, run) => total + run.cpuMicros * run.requests, 0) / requests,
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    non2xx: sum('non2xx'),
    errors: sum('errors'),
    others: Math.max(...runs.map((run) => run.others)),
  };
}

/** Everything measured on one database; `databaseUrl` unset = SQLite. */
async function benchDatabase(label, databaseUrl) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-data-'));
  const removeData = onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  // A fresh schema per run (lower-case identifier, as the server requires).
  const schema = databaseUrl && `bench_${process.pid}_${Date.now().toString(36)}`;
  const dropSchema = onCleanup(async () => {
    if (schema) await query(databaseUrl, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
  try {
    const env = {
      ...referenceEnv({ dataDir, databaseUrl, schema, caFile: certificate.certFile }),
      // Layers the benchmark turns off by default, to measure what they cost when on.
      LOG_LEVEL: values['log-level'],
      PLATFORM_RATE_LIMIT: values['rate-limit'],
    };
    const credentials = createClient(env);
    const basic = `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`;
    const server = await startReference(
      env,
      profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    );
    // Started with the reference server, so that the two have the same history when they are compared:
    // started, then idle while bare node:http is measured (measureFrameworkShare).
    const fastify = wanted('GET /healthz') || wanted('bare Fastify') ? await startBareFastify() : undefined;
    const stopFastify = onCleanup(async () => fastify?.stop());
    const result = { label, bareRuns: [await measureBare(`${label}: `)], rows: [] };
    try {
      const { access_token: token } = await apiOf(server.url, basic)('POST', '/oauth/token', {
        body: 'grant_type=client_credentials&scope=user%20data%20chat',
        type: 'application/x-www-form-urlencoded',
      });
      const bearer = `Bearer ${token}`;
      const api = apiOf(server.url, bearer);
      if (fastify) {
        const share = await measureFrameworkShare(fastify, server, `${label}: `);
        await stopFastify();
        result.fastify = share.fastify;
        result.rows.push(share.health);
        result.frameworkRounds = share.rounds;
      }
      progress(`${label}: seeding 60 users, a dataset of 10,000 rows, a chat channel`);
      const { userIds, datasetId, channelId } = await seed(api, label.split(' ')[0].toLowerCase());
      const json = { authorization: bearer, 'content-type': 'application/json' };
      const getUser = { url: `${server.url}/v1/users/${userIds[0]}`, headers: { authorization: bearer } };
      const scenarios = [
        ['GET /v1/users/{id}', getUser],
        [
          'GET /v1/users?limit=50',
          { url: `${server.url}/v1/users?limit=50`, headers: { authorization: bearer } },
        ],
        [
          'POST /v1/users',
          {
            url: `${server.url}/v1/users`,
            method: 'POST',
            headers: json,
            body: `{"name":"Bench User","email":"bench-${UNIQUE}@bench.example.com","role":"Participant"}`,
          },
        ],
        [
          'PUT /v1/users/{id}',
          {
            url: `${server.url}/v1/users/${userIds[1]}`,
            method: 'PUT',
            headers: json,
            body: '{"title":"Benchmark engineer","location":"Loopback"}',
          },
        ],
        [
          'GET /v1/datasets/{id}/data (10,000 rows)',
          {
            url: `${server.url}/v1/datasets/${datasetId}/data`,
            headers: { authorization: bearer, accept: 'text/csv' },
          },
        ],
        [
          'POST /oauth/token',
          {
            url: `${server.url}/oauth/token`,
            method: 'POST',
            headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=client_credentials&scope=user',
          },
        ],
      ].filter(([name]) => wanted(name));
      for (const [name, target] of scenarios) {
        result.rows.push(await measure(name, target, `${label}: `, server.pid));
      }
      result.bareRuns.push(await measureBare(`${label}: `));
      result.bare = result.bareRuns.reduce((best, run) => (run.rps > best.rps ? run : best));
      if (wanted('event delivery')) result.events = await eventDelivery(server.url, bearer, channelId);
      if (wanted('event isolation')) {
        result.isolation = await eventIsolation(server.url, bearer, channelId);
      }
      if (wanted('client')) {
        progress(`${label}: createPlatformClient against raw fetch, sequential`);
        result.client = await compareClient({
          baseUrl: server.url,
          ...credentials,
          id: userIds[0],
          seconds: Math.max(2, duration),
        });
      }
      if (values.only) return result;
      progress(`${label}: memory, ${memorySeconds} s of GET /v1/users/{id}`);
      const before = rssKiB(server.pid);
      const { others } = await runLoad(getUser, { generator, duration: memorySeconds, connections });
      result.memory = { before, after: rssKiB(server.pid), others };
    } finally {
      await server.stop();
    }

    progress(`${label}: cold start, ${coldStarts} times`);
    const starts = [];
    for (let i = 0; i < coldStarts; i++) {
      const restarted = await startReference(env);
      starts.push(restarted.readyMs);
      await restarted.stop();
    }
    result.coldStart = { median: median(starts), all: starts };
    return result;
  } finally {
    await dropSchema();
    await removeData();
  }
}

// --- the run ----------------------------------------------------------------------------------------------------
const startedAt = new Date();
const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`;
const root = resolve(import.meta.dirname, '..', '..', '..');
const load = `${await generatorName(generator)}, ${connections} keep-alive connections, ${duration} s per scenario after a ${warmup} s warm-up`;
const databases = [];
const skipped = [];
// What was measured: the commit, and whether the server's sources differ from it.
const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout?.trim() ?? '';
const commit = `commit ${git('rev-parse', '--short', 'HEAD') || 'unknown'}${git('status', '--porcelain', '--', 'apps/server/src', 'packages', 'spec') ? ' with uncommitted changes to the server or its packages' : ''}`;
// How idle the CPUs were in the second before the run: a busy machine makes every figure noisier.
const cpuTimes = () => {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  return { idle: fields[3] + fields[4], total: fields.reduce((sum, n) => sum + n, 0) };
};
const before = cpuTimes();
await sleep(1000);
const after = cpuTimes();
const idleBefore = ((after.idle - before.idle) / (after.total - before.total)) * 100;
let prism;
let failed = false;
let noisy = false;
try {
  // Prism checks that a credential is present, not what it is.
  const prismAuth = { authorization: 'Bearer any-token' };
  const mock = await startPrism('/v1/users/964382593', prismAuth);
  try {
    prism = await measure(
      'Prism mock `GET /v1/users/{id}`',
      { url: `${mock.url}/v1/users/964382593`, headers: prismAuth },
      '',
      mock.pid,
    );
  } finally {
    await mock.stop();
  }

  for (const name of values.databases.split(',').map((n) => n.trim().toLowerCase())) {
    if (name === 'sqlite') {
      databases.push(await benchDatabase('SQLite', undefined));
    } else if (name === 'postgresql' || name === 'postgres') {
      const postgres = providePostgres();
      if (postgres.skipped) {
        skipped.push(postgres.skipped);
        console.error(`\n*** SKIPPED PostgreSQL: ${postgres.skipped} ***\n`);
        continue;
      }
      const release = onCleanup(() => postgres.release());
      try {
        const [{ server_version: version }] = await query(postgres.url, 'SHOW server_version').catch(
          (error) => {
            throw Object.assign(new Error(`cannot connect (${error.message})`), { unreachable: true });
          },
        );
        databases.push(await benchDatabase(`PostgreSQL ${version.split(' ')[0]}`, postgres.url));
      } catch (error) {
        if (!error.unreachable) throw error;
        skipped.push(error.message);
        console.error(`\n*** SKIPPED PostgreSQL: ${error.message} ***\n`);
      } finally {
        await release();
      }
    } else {
      throw new Error(`--databases: unknown database "${name}" (sqlite, postgresql)`);
    }
  }
} finally {
  await cleanUp();
}

// --- the report -------------------------------------------------------------------------------------------------
const integer = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
const ms = (n) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n.toFixed(1)) : '—');
const ratio = (n) => (Number.isFinite(n) ? n.toFixed(3) : '—');
const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;

/** Other processes (or the hypervisor) took more than a tenth of a CPU meanwhile: ⚠ and the amount. */
const disturbedBy = (others) => (others > 0.1 ? ` ⚠ ${others.toFixed(2)} CPU` : '');

function row(r, bare) {
  noisy ||= r.others > 0.1;
  const bad = r.non2xx > 0 || r.errors > 0;
  failed ||= bad;
  const non2xx = `${integer(r.non2xx)}${r.errors > 0 ? ` (+${integer(r.errors)} socket errors)` : ''}`;
  // An empty histogram (nothing answered within the run) has no percentiles.
  const [p50, p99] = r.requests > 0 ? [ms(r.p50), ms(r.p99)] : ['—', '—'];
  const cpu = Number.isFinite(r.cpuMicros) ? r.cpuMicros.toFixed(1) : '—';
  return `| ${r.name}${disturbedBy(r.others)} | ${integer(r.rps)} | ${ratio(r.rps / bare.rps)} | ${cpu} | ${ratio(bare.cpuMicros / r.cpuMicros)} | ${p50} | ${p99} | ${bad ? `**${non2xx}**` : non2xx} |`;
}

/** A scenario's req/s ÷ bare node:http of the same table. */
const scenario = (name) => (d) => d.rows.find((r) => r.name === name)?.rps / d.bare.rps;
const userRead = scenario('GET /v1/users/{id}');

console.log(
  `\n## Reference server benchmark, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC\n`,
);
console.log(
  `Machine: ${machine}; CPUs ${idleBefore.toFixed(0)} % idle in the second before the run. Server: ${commit}.\n` +
    `Load: ${load}; the load generator and every server in processes of their own.\n` +
    `Reference server: log level ${values['log-level']}, rate limit ${values['rate-limit'] === '0' ? 'off' : `${values['rate-limit']} a window`}.`,
);
for (const d of databases) {
  console.log(`\n### ${d.label}\n`);
  console.log(
    '| scenario | req/s | ÷ bare node:http | server CPU µs/request | bare ÷ it, by CPU | p50 ms | p99 ms | non-2xx |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of [d.bare, d.fastify, ...d.rows, prism]) if (r) console.log(row(r, d.bare));
  const health = d.rows.find((r) => r.name === 'GET /healthz');
  if (health && d.fastify) {
    const rounds = d.frameworkRounds
      .map(
        (r) => `${ratio(r.health.rps / r.fastify.rps)} / ${ratio(r.fastify.cpuMicros / r.health.cpuMicros)}`,
      )
      .join(', ');
    console.log(
      `\n\`GET /healthz\` ÷ bare Fastify = ${ratio(health.rps / d.fastify.rps)} by req/s, ${ratio(d.fastify.cpuMicros / health.cpuMicros)} by CPU per request (what our set-up adds to a route; both rows are ${FRAMEWORK_ROUNDS} runs of ${FRAMEWORK_ROUND_SECONDS} s driven in turn after one round of warm-up, the rounds by req/s / by CPU: ${rounds}); bare Fastify ÷ bare \`node:http\` = ${ratio(d.fastify.rps / d.bare.rps)} by req/s, ${ratio(d.bare.cpuMicros / d.fastify.cpuMicros)} by CPU.`,
    );
  }
  const read = d.rows.find((r) => r.name === 'GET /v1/users/{id}');
  if (read) console.log(`\`GET /v1/users/{id}\`: server ÷ Prism = ${(read.rps / prism.rps).toFixed(2)}×.`);
  const [first, second] = d.bareRuns.map((run) => integer(run.rps));
  console.log(
    `bare \`node:http\`: the better of two runs, ${first} req/s before the scenarios and ${second} after.`,
  );
  const spread = Math.min(...d.bareRuns.map((r) => r.rps)) / d.bare.rps;
  if (spread < 0.8 || d.rows.some((r) => r.rps > d.bare.rps)) {
    noisy = true;
    console.log(
      '**Disturbed:** the bare runs differ by more than 20 %, or a scenario beat bare node:http: something else used the CPU. Rerun on an idle machine.',
    );
  }
}

const measured = databases.filter((d) => d.events || d.isolation);
if (measured.length > 0) {
  const table = (rows) => {
    console.log(`\n| measurement | ${measured.map((d) => d.label).join(' | ')} |`);
    console.log(`|---|${measured.map(() => '---|').join('')}`);
    for (const [name, cell, others] of rows) {
      // A measurement `--only` left out has no figures.
      const figure = (f, d) => {
        try {
          return f(d);
        } catch {
          return undefined;
        }
      };
      const cells = measured.map((d) => {
        if (figure(cell, d) === undefined) return 'not measured';
        noisy ||= figure(others, d) > 0.1;
        return `${cell(d)}${disturbedBy(others(d))}`;
      });
      console.log(`| ${name} | ${cells.join(' | ')} |`);
    }
  };
  const events = (e) =>
    `${integer(e.perSecond)} events/s; p50 ${ms(e.p50)} ms, p99 ${ms(e.p99)} ms (${integer(e.received)} of ${integer(e.posted)} received${e.failed ? `, **${e.failed} posts failed**` : ''})`;
  console.log('\n### Also measured');
  table([
    [
      `event delivery, ${integer(eventCount)} messages at full rate`,
      (d) => events(d.events.full),
      (d) => d.events.full.others,
    ],
    [
      'event delivery at half that rate',
      (d) => `${integer(d.events.half.rate)}/s offered: ${events(d.events.half)}`,
      (d) => d.events.half.others,
    ],
    ...(measured[0]?.isolation ?? []).map(({ name }, i) => [
      `event isolation: the healthy receiver at ${ISOLATION_RATE} events/s beside ${name}`,
      (d) => {
        const v = d.isolation?.[i];
        if (!v) return 'not measured';
        return `${events(v.healthy)}; the failing ones got ${integer(v.failingRequests)} requests, at most ${integer(v.maxOpenPerReceiver)} open at one receiver; ${v.openBreakers} of ${v.receivers} breakers not closed at the end`;
      },
      (d) => d.isolation?.[i]?.healthy.others ?? 0,
    ]),
    [
      'client: `createPlatformClient` ÷ raw `fetch` (GET /v1/users/{id}, sequential)',
      (d) =>
        `${integer(d.client.client)} ÷ ${integer(d.client.fetch)} calls/s = ${ratio(d.client.client / d.client.fetch)}`,
      (d) => d.client.others,
    ],
    [
      `cold start: spawn → first 200 from /readyz, median of ${coldStarts}`,
      (d) => `${integer(d.coldStart.median)} ms (${d.coldStart.all.map(integer).join(', ')})`,
      () => 0,
    ],
    [
      `memory: RSS before → after ${memorySeconds} s of GET /v1/users/{id}`,
      (d) =>
        `${mib(d.memory.before)} → ${mib(d.memory.after)} (${((d.memory.after / d.memory.before - 1) * 100).toFixed(1)} %)`,
      (d) => d.memory.others,
    ],
  ]);
}

// Issue 10, item 2: each goal, where it applies, and the value that decides it.
const goals = [
  [
    '`GET /healthz` ≥ 0.9× bare Fastify',
    'each',
    (d) => d.rows.find((r) => r.name === 'GET /healthz')?.rps / d.fastify?.rps,
    (v) => v >= 0.9,
    ratio,
  ],
  ['`GET /v1/users/{id}` ≥ 0.5× bare node:http', 'SQLite', userRead, (v) => v >= 0.5, ratio],
  [
    '`GET /v1/users/{id}` ≥ 10× Prism',
    'SQLite',
    (d) => d.rows.find((r) => r.name === 'GET /v1/users/{id}')?.rps / prism.rps,
    (v) => v >= 10,
    (v) => `${v.toFixed(2)}×`,
  ],
  ['`GET /v1/users/{id}` ≥ 0.25× bare node:http', 'PostgreSQL', userRead, (v) => v >= 0.25, ratio],
  [
    '`GET /v1/users?limit=50` ≥ 0.35× bare',
    'SQLite',
    scenario('GET /v1/users?limit=50'),
    (v) => v >= 0.35,
    ratio,
  ],
  ['`POST /v1/users` ≥ 0.25× bare', 'SQLite', scenario('POST /v1/users'), (v) => v >= 0.25, ratio],
  ['event delivery ≥ 2,000 events/s', 'each', (d) => d.events?.full.perSecond, (v) => v >= 2000, integer],
  [
    'event p99 < 200 ms at half that rate',
    'each',
    (d) => d.events?.half.p99,
    (v) => v < 200,
    (v) => `${ms(v)} ms`,
  ],
  [
    'healthy receiver p99 < 200 ms beside failing ones (issue 26)',
    'each',
    (d) => d.isolation && Math.max(...d.isolation.map((v) => v.healthy.p99)),
    (v) => v < 200,
    (v) => (Number.isFinite(v) ? `${ms(v)} ms (the worse variant)` : 'not all delivered within a minute'),
  ],
  [
    'client ≥ 0.9× raw fetch',
    'each',
    (d) => d.client && d.client.client / d.client.fetch,
    (v) => v >= 0.9,
    ratio,
  ],
  [
    `RSS growth < 10 % over ${memorySeconds} s`,
    'each',
    (d) => d.memory && (d.memory.after / d.memory.before - 1) * 100,
    (v) => v < 10,
    (v) => `${v.toFixed(1)} %`,
  ],
  ['cold start < 1 s', 'each', (d) => d.coldStart?.median, (v) => v < 1000, (v) => `${integer(v)} ms`],
];
if (databases.length > 0) {
  console.log('\n### Goals (issue 10, item 2)\n');
  console.log(`| goal | ${databases.map((d) => d.label).join(' | ')} |`);
  console.log(`|---|${databases.map(() => '---|').join('')}`);
  for (const [goal, where, value, met, format] of goals) {
    const cells = databases.map((d) => {
      if (where !== 'each' && !d.label.startsWith(where)) return '—';
      const v = value(d);
      if (v === undefined || Number.isNaN(v)) return 'not measured';
      return `${format(v)} — ${met(v) ? 'met' : '**not met**'}`;
    });
    console.log(`| ${goal} | ${cells.join(' | ')} |`);
  }
}
for (const reason of skipped) console.log(`\n*** SKIPPED PostgreSQL: ${reason} ***`);
if (noisy) {
  console.log(
    '\n⚠ N CPU: other processes or the hypervisor took N CPUs (on average) while that figure was measured, or the bare runs disagree: not reliable, rerun on an idle machine.',
  );
}
if (failed) {
  console.log('\nSome requests failed or answered non-2xx (in bold above): those figures are not valid.');
  process.exit(1);
}
