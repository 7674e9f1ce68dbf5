// `npm run bench`: the reference server's throughput beside bare node:http (the physical limit of one Node
// process on this machine) and the Prism mock, measured in one run, on SQLite and on PostgreSQL; then
// event delivery, the TypeScript client's overhead, cold start and memory; then the reference server's
// goals beside what was measured. Also the platform mock with memory beside the stateless one (Prism): its
// reads, and its RSS holding --mock-users users created through its API. Ratios are what compares across
// machines; docs/guides/benchmarks.md says what each figure measures.
//
//   npm run bench -- [--duration 8] [--connections 32] [--memory-seconds 60] [--events 5000]
//                    [--mock-users 100000] [--databases sqlite,postgresql|none]
//                    [--generator wrk|autocannon] [--only TEXT[|TEXT…]] [--profile DIR]
//                    [--log-level silent] [--rate-limit 0] [--quick] [--help]
//
// --only picks scenarios by part of their name (`--only 'healthz|GET /v1/users/{id}'`, `--only mock`); the
// reference server is not started when it picks none of its measurements. --profile writes the CPU
// profiles of the reference server and of the mock with memory's front into DIR (read them with
// top-self-time.mjs); --log-level and --rate-limit turn on the server's request logging (to /dev/null) and
// its rate limiter (give a limit the run cannot reach, e.g. 1000000000), off by default, to measure what
// each costs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { selfSignedCertificate } from '@platform-api/test-support';
import {
  compareClient,
  createMany,
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
  peakRssKiB,
  providePostgres,
  query,
  referenceEnv,
  rssKiB,
  startBare,
  startBareFastify,
  startFailingReceiver,
  startMock,
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
    'mock-users': { type: 'string' },
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
const mockUsers = Math.round(positive('mock-users', values['mock-users'] ?? (quick ? '2000' : '100000')));
const coldStarts = 5;
const generator = pickGenerator(values.generator);
const profileDir = values.profile && resolve(values.profile);
const profileArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
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
 * A warm-up (discarded), then the measured run. With the server's `pid` (or several: the mock's front and
 * its Prism), also the CPU time it spent per request (µs): unlike req/s, barely moved by other jobs on a
 * shared machine, so the figure to compare layers by.
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

/** Events per second offered in the isolation scenario. */
const ISOLATION_RATE = 20;
/** How long the isolation scenario waits for the healthy deliveries after the last message. */
const ISOLATION_WAIT_MS = 60_000;

/**
 * Event isolation: the healthy receiver's latency while other subscriptions' receivers fail — (a) one that never
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
    // A healthy delivery held up by the failing ones arrives minutes late: a minute is enough to tell.
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

/** The reference server's scenarios, in the order they run. */
const DATABASE_SCENARIOS = [
  'GET /v1/users/{id}',
  'GET /v1/users?limit=50',
  'POST /v1/users',
  'PUT /v1/users/{id}',
  'GET /v1/datasets/{id}/data (10,000 rows)',
  'POST /oauth/token',
];
/** Everything a database's part can measure, by the names `--only` picks from. */
const DATABASE_MEASUREMENTS = [
  ...DATABASE_SCENARIOS,
  'GET /healthz',
  'bare Fastify',
  'event delivery',
  'event isolation',
  'client',
];

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
    const server = await startReference(env, profileArgs);
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
      const targets = {
        'GET /v1/users/{id}': getUser,
        'GET /v1/users?limit=50': {
          url: `${server.url}/v1/users?limit=50`,
          headers: { authorization: bearer },
        },
        'POST /v1/users': {
          url: `${server.url}/v1/users`,
          method: 'POST',
          headers: json,
          body: `{"name":"Bench User","email":"bench-${UNIQUE}@bench.example.com","role":"Participant"}`,
        },
        'PUT /v1/users/{id}': {
          url: `${server.url}/v1/users/${userIds[1]}`,
          method: 'PUT',
          headers: json,
          body: '{"title":"Benchmark engineer","location":"Loopback"}',
        },
        'GET /v1/datasets/{id}/data (10,000 rows)': {
          url: `${server.url}/v1/datasets/${datasetId}/data`,
          headers: { authorization: bearer, accept: 'text/csv' },
        },
        'POST /oauth/token': {
          url: `${server.url}/oauth/token`,
          method: 'POST',
          headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials&scope=user',
        },
      };
      for (const name of DATABASE_SCENARIOS.filter(wanted)) {
        result.rows.push(await measure(name, targets[name], `${label}: `, server.pid));
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

// --- the platform mock (apps/mock) --------------------------------------------------------------------------------
const PRISM_READ = 'Prism mock `GET /v1/users/{id}`';
const PRISM_LIST = 'Prism mock `GET /v1/users?limit=50`';
const MOCK_READ = 'mock with memory `GET /v1/users/{id}`, a stored user';
const MOCK_LIST = 'mock with memory `GET /v1/users?limit=50`, 60 stored users';
const MOCK_MEMORY = 'mock with memory: RSS holding the users created through its API';
/** The list again once the memory measurement has filled the store: what a list costs as the store grows. */
const MOCK_LIST_FILLED = `mock with memory \`GET /v1/users?limit=50\`, ${mockUsers.toLocaleString('en-US')} stored users`;
/** Any client id takes the mock's token endpoint; its first secret sticks. */
const MOCK_BASIC = `Basic ${Buffer.from('bench:bench-secret').toString('base64')}`;
/** The goals of the mock with memory, measured against the stateless mock in the same run. */
const MOCK_GOALS = {
  read: 10,
  readP50Ms: 2,
  readP50Connections: 32,
  list: 5,
  users: 100_000,
  rssBytes: 200e6,
};

/** A token of the mock with memory for MOCK_BASIC's client (the tenant), as an Authorization value. */
async function mockToken(url) {
  const { access_token: token } = await apiOf(url, MOCK_BASIC)('POST', '/oauth/token', {
    body: 'grant_type=client_credentials',
    type: 'application/x-www-form-urlencoded',
  });
  return `Bearer ${token}`;
}

/** `target` answers 2xx from `who` (the mock's `Server` header: `memory` or `stateless`), else throws. */
async function expectAnswer(target, who) {
  const response = await fetch(target.url, { headers: target.headers });
  const text = await response.text();
  const server = response.headers.get('server') ?? '';
  if (!response.ok || !server.includes(`(${who})`))
    throw new Error(`GET ${target.url}: ${response.status} from "${server}": ${text.slice(0, 300)}`);
}

/**
 * The platform mock: the stateless mock (Prism's examples: the baseline "Prism"), then the mock with memory
 * answering the same requests for what was created through its API, then the mock with memory's RSS
 * holding --mock-users users. Each in a fresh mock; the CPU per request counts the front and its Prism.
 */
async function benchMock() {
  const result = {};
  const prism = await startMock({ stateless: true });
  try {
    // Prism checks that a credential is present, not what it is.
    const headers = { authorization: 'Bearer any-token' };
    const pids = [prism.pid, prism.prismPid];
    const read = { url: `${prism.url}/v1/users/964382593`, headers };
    await expectAnswer(read, 'stateless');
    result.prismRead = await measure(PRISM_READ, read, '', pids);
    if (wanted(PRISM_LIST) || wanted(MOCK_LIST) || wanted(MOCK_MEMORY)) {
      const list = { url: `${prism.url}/v1/users?limit=50`, headers };
      await expectAnswer(list, 'stateless');
      result.prismList = await measure(PRISM_LIST, list, '', pids);
    }
  } finally {
    await prism.stop();
  }

  if (wanted(MOCK_READ) || wanted(MOCK_LIST)) {
    // The ceiling of this run's machine, for the p50 goal: what a request costs the kernel and node alone.
    result.bare = await measureBare('mock: ');
    const mock = await startMock({ basic: MOCK_BASIC, nodeArgs: profileArgs });
    try {
      if (profileDir) progress(`mock with memory: its front (pid ${mock.pid}) profiled into ${profileDir}`);
      const pids = [mock.pid, mock.prismPid];
      const headers = { authorization: await mockToken(mock.url) };
      const api = apiOf(mock.url, headers.authorization);
      progress('mock with memory: 60 users created through its API');
      const ids = [];
      for (let batch = 0; batch < 6; batch++) {
        const users = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            api('POST', '/v1/users', {
              json: {
                name: `Mock ${batch * 10 + i}`,
                email: `mock-${batch * 10 + i}@bench.example.com`,
                role: 'Participant',
              },
            }),
          ),
        );
        ids.push(...users.map((user) => user.id));
      }
      if (wanted(MOCK_READ)) {
        const read = { url: `${mock.url}/v1/users/${ids[0]}`, headers };
        await expectAnswer(read, 'memory');
        result.read = await measure(MOCK_READ, read, '', pids);
      }
      if (wanted(MOCK_LIST)) {
        const list = { url: `${mock.url}/v1/users?limit=50`, headers };
        await expectAnswer(list, 'memory');
        result.list = await measure(MOCK_LIST, list, '', pids);
      }
    } finally {
      await mock.stop();
    }
  }

  if (wanted(MOCK_MEMORY)) result.memory = await mockMemory();
  return result;
}

/**
 * The mock with memory's RSS before and after --mock-users users are created through its API (the
 * `connections` in flight, each a fresh e-mail), and the most it had (VmHWM); the same of its Prism child.
 * Its limit leaves room for every user and the examples, so that none is dropped (the oldest would go
 * first): the first user created still reads after the fill, and the list reaches the last. Then, the
 * RSS taken, `GET /v1/users?limit=50` on the filled store.
 */
async function mockMemory() {
  const mock = await startMock({ maxItems: mockUsers + 10_000, basic: MOCK_BASIC, nodeArgs: profileArgs });
  try {
    const authorization = await mockToken(mock.url);
    const rss = () => ({ front: rssKiB(mock.pid), prism: rssKiB(mock.prismPid) });
    const before = rss();
    const cpuBefore = { front: cpuSeconds(mock.pid), prism: cpuSeconds(mock.prismPid) };
    progress(
      `mock with memory: ${mockUsers.toLocaleString('en-US')} users created, ${connections} at a time`,
    );
    const fill = await createMany(
      {
        url: `${mock.url}/v1/users`,
        headers: { authorization, 'content-type': 'application/json' },
        body: `{"name":"Stored User","email":"stored-${UNIQUE}@bench.example.com","role":"Participant"}`,
      },
      { amount: mockUsers, connections },
    );
    const ended = mock.ended() ?? (existsSync(`/proc/${mock.prismPid}`) ? undefined : 'Prism exited');
    if (ended)
      throw new Error(`the mock with memory during the fill: ${ended}; the fill: ${JSON.stringify(fill)}`);
    const after = rss();
    const cpuMicros = {
      front: ((cpuSeconds(mock.pid) - cpuBefore.front) / fill.ok) * 1e6,
      prism: ((cpuSeconds(mock.prismPid) - cpuBefore.prism) / fill.ok) * 1e6,
    };
    const api = apiOf(mock.url, authorization);
    const firstHeld =
      fill.firstId !== undefined &&
      (await api('GET', `/v1/users/${fill.firstId}`).then(
        () => true,
        () => false,
      ));
    const last = await api('GET', `/v1/users?offset=${Math.max(0, fill.ok - 1)}&limit=50`);
    // Idle for longer than V8's memory reducer waits (about 8 s): what the state keeps, its garbage collected.
    await sleep(10_000);
    const settled = rss();
    // The most each had, from its start to here (the list measured next would add its own garbage).
    const peak = { front: peakRssKiB(mock.pid), prism: peakRssKiB(mock.prismPid) };
    const list = { url: `${mock.url}/v1/users?limit=50`, headers: { authorization } };
    await expectAnswer(list, 'memory');
    return {
      fill,
      before,
      after,
      peak,
      settled,
      cpuMicros,
      held: firstHeld && last.length > 0,
      list: await measure(MOCK_LIST_FILLED, list, '', [mock.pid, mock.prismPid]),
    };
  } finally {
    await mock.stop();
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
const commit = `commit ${git('rev-parse', '--short', 'HEAD') || 'unknown'}${git('status', '--porcelain', '--', 'apps/server/src', 'apps/mock/src', 'packages', 'spec') ? ' with uncommitted changes to the server, the mock or their packages' : ''}`;
// How idle the CPUs were in the second before the run: a busy machine makes every figure noisier.
const cpuTimes = () => {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  return { idle: fields[3] + fields[4], total: fields.reduce((sum, n) => sum + n, 0) };
};
const before = cpuTimes();
await sleep(1000);
const after = cpuTimes();
const idleBefore = ((after.idle - before.idle) / (after.total - before.total)) * 100;
let mock;
let prism;
let failed = false;
let noisy = false;
// `--databases none`, or an --only that picks none of a database's measurements: no reference server.
const databaseNames =
  values.only && !DATABASE_MEASUREMENTS.some(wanted)
    ? []
    : values.databases
        .split(',')
        .map((n) => n.trim().toLowerCase())
        .filter((n) => n && n !== 'none');
if (databaseNames.length === 0)
  progress('no database measurement asked for: the reference server is not started');
try {
  mock = await benchMock();
  prism = mock.prismRead;

  for (const name of databaseNames) {
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
      throw new Error(`--databases: unknown database "${name}" (sqlite, postgresql, none)`);
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

// The reference server's goals: each goal, where it applies, and the value that decides it.
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
    'healthy receiver p99 < 200 ms beside failing ones',
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
  console.log('\n### Goals of the reference server\n');
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

// The platform mock with memory beside the stateless one (Prism), each request against the same request
// of the stateless mock.
const mockRows = [
  [mock.bare, undefined],
  [mock.prismRead, mock.prismRead],
  [mock.read, mock.prismRead],
  [mock.prismList, mock.prismList],
  [mock.list, mock.prismList],
  [mock.memory?.list, mock.prismList],
].filter(([r]) => r);
const megabytes = (kib) => `${((kib * 1024) / 1e6).toFixed(1)} MB`;
if (mock.read || mock.list || mock.memory) {
  console.log('\n### The platform mock: with memory, beside the stateless mock (Prism)\n');
  console.log(
    '| scenario | req/s | ÷ stateless, same request | server CPU µs/request (a mock: front + Prism) | stateless ÷ it, by CPU | p50 ms | p99 ms | non-2xx |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [r, baseline] of mockRows) {
    noisy ||= r.others > 0.1;
    const bad = r.non2xx > 0 || r.errors > 0;
    failed ||= bad;
    const non2xx = `${integer(r.non2xx)}${r.errors > 0 ? ` (+${integer(r.errors)} socket errors)` : ''}`;
    const [p50, p99] = r.requests > 0 ? [ms(r.p50), ms(r.p99)] : ['—', '—'];
    console.log(
      `| ${r.name}${disturbedBy(r.others)} | ${integer(r.rps)} | ${ratio(r.rps / baseline?.rps)} | ${r.cpuMicros.toFixed(1)} | ${ratio(baseline?.cpuMicros / r.cpuMicros)} | ${p50} | ${p99} | ${bad ? `**${non2xx}**` : non2xx} |`,
    );
  }
  if (mock.bare && mock.read)
    console.log(
      `\nThe mock with memory's \`GET /v1/users/{id}\` ÷ bare \`node:http\` (measured just before it) = ${ratio(mock.read.rps / mock.bare.rps)} by req/s, ${ratio(mock.bare.cpuMicros / mock.read.cpuMicros)} by CPU per request.`,
    );
  const m = mock.memory;
  if (m) {
    const { fill } = m;
    noisy ||= fill.others > 0.1;
    const bad = fill.non2xx > 0 || fill.errors > 0 || !m.held;
    failed ||= bad;
    const refused = Object.entries(fill.statuses)
      .map(([status, count]) => `${integer(count)} × ${status}`)
      .join(', ');
    const problems = [
      refused && `refused: ${refused}`,
      fill.errors > 0 && `${integer(fill.errors)} socket errors`,
      !m.held && 'not all held: the first user no longer reads, or the list ends early',
    ].filter(Boolean);
    console.log(
      `\n**Memory**${disturbedBy(fill.others)}: ${integer(fill.ok)} users created through \`POST /v1/users\` (${connections} in flight, each through Prism's validation) in ${fill.seconds.toFixed(0)} s, ${integer(fill.ok / fill.seconds)} a second; CPU a create: front ${integer(m.cpuMicros.front)} µs, Prism ${integer(m.cpuMicros.prism)} µs${problems.length > 0 ? `; **${problems.join('; ')}**` : ''}.`,
    );
    console.log(
      `RSS of the mock's front (its own process, which holds the state): ${megabytes(m.before.front)} started → ${megabytes(m.after.front)} after the fill → ${megabytes(m.settled.front)} 10 s later; at most ${megabytes(m.peak.front)} (VmHWM).`,
    );
    console.log(
      `RSS of its Prism child, not counted (what is stored lives in the front; Prism judges each write as if nothing were stored): ${megabytes(m.before.prism)} → ${megabytes(m.after.prism)} → ${megabytes(m.settled.prism)}; at most ${megabytes(m.peak.prism)}.`,
    );
  }
  const mockGoals = [
    [
      `mock with memory \`GET /v1/users/{id}\` ≥ ${MOCK_GOALS.read}× the stateless mock's`,
      mock.read && mock.read.rps / mock.prismRead.rps,
      (v) => v >= MOCK_GOALS.read,
      (v) => `${v.toFixed(2)}×`,
    ],
    [
      `its p50 ≤ ${MOCK_GOALS.readP50Ms} ms at ${MOCK_GOALS.readP50Connections} connections`,
      connections === MOCK_GOALS.readP50Connections ? mock.read?.p50 : undefined,
      (v) => v <= MOCK_GOALS.readP50Ms,
      (v) => `${ms(v)} ms`,
    ],
    [
      `mock with memory \`GET /v1/users?limit=50\` ≥ ${MOCK_GOALS.list}× the stateless mock's`,
      mock.list && mock.list.rps / mock.prismList.rps,
      (v) => v >= MOCK_GOALS.list,
      (v) => `${v.toFixed(2)}×`,
    ],
    [
      `${integer(MOCK_GOALS.users)} users held in ≤ ${MOCK_GOALS.rssBytes / 1e6} MB RSS of the mock's front (the most it had)`,
      mock.memory &&
        (mock.memory.fill.ok >= MOCK_GOALS.users
          ? mock.memory.peak.front * 1024
          : `not measured: ${integer(mock.memory.fill.ok)} users (--mock-users)`),
      (v) => v <= MOCK_GOALS.rssBytes,
      (v) => megabytes(v / 1024),
    ],
  ];
  console.log('\n### Goals of the mock with memory\n');
  console.log('| goal | measured |');
  console.log('|---|---|');
  for (const [goal, v, met, format] of mockGoals) {
    const cell =
      typeof v === 'string'
        ? v
        : v === undefined || Number.isNaN(v)
          ? 'not measured'
          : `${format(v)} — ${met(v) ? 'met' : '**not met**'}`;
    console.log(`| ${goal} | ${cell} |`);
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
