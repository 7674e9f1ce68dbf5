// Throughput of the reference server, as ratios to a baseline measured in the same run.
//
// The baseline is GET /healthz: Fastify, routing and serialisation with no auth and no database.
// Each scenario adds what a real call costs (token check, scope check, tenant-scoped query, request
// validation, a write). Ratios are comparable across machines; absolute numbers are not.
//
//   node apps/server/bench/throughput.mjs [--seconds 3] [--concurrency 16] [--database-url postgres://…]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    'database-url': { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const env = {
  ...process.env,
  LOG_LEVEL: 'silent',
  PLATFORM_BOOTSTRAP: 'false',
  PLATFORM_RATE_LIMIT: '0',
  PLATFORM_DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-')),
};
if (values['database-url']) {
  env.DATABASE_URL = values['database-url'];
  env.PLATFORM_DATABASE_SCHEMA = `bench_${process.pid}`;
}
const database = values['database-url'] ? 'PostgreSQL' : 'SQLite';
const { clientId, clientSecret } = JSON.parse(
  execFileSync(
    process.execPath,
    [cli, 'clients', 'create', '--instance', 'bench', '--scopes', 'user,data,chat', '--json'],
    { env, encoding: 'utf8' },
  ),
);
const server = spawn(process.execPath, [cli, 'serve', '--port', String(port), '--host', '127.0.0.1'], {
  env,
  stdio: 'ignore',
});
const base = `http://127.0.0.1:${port}`;
for (let ready = false; !ready; ) {
  ready = await fetch(`${base}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
  if (!ready) await new Promise((r) => setTimeout(r, 100));
}

const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
const token = (
  await (
    await fetch(`${base}/oauth/token?grant_type=client_credentials&scope=user`, {
      headers: { authorization: basic },
    })
  ).json()
).access_token;
const auth = { authorization: `Bearer ${token}` };
const json = { ...auth, 'content-type': 'application/json' };
let created = 0;
const seedIds = [];
for (let i = 0; i < 100; i++) {
  const response = await fetch(`${base}/v1/users`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ name: `Seed ${i}`, email: `seed${i}@bench.example.com`, role: 'Participant' }),
  });
  seedIds.push((await response.json()).id);
}

const scenarios = [
  { name: 'GET /healthz (baseline)', request: () => fetch(`${base}/healthz`) },
  {
    name: 'GET /v1/users/{id}',
    request: (i) => fetch(`${base}/v1/users/${seedIds[i % seedIds.length]}`, { headers: auth }),
  },
  { name: 'GET /v1/users?limit=50', request: () => fetch(`${base}/v1/users?limit=50`, { headers: auth }) },
  {
    name: 'POST /v1/users',
    request: () =>
      fetch(`${base}/v1/users`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          name: 'Bench User',
          email: `bench${created++}@bench.example.com`,
          role: 'Participant',
        }),
      }),
  },
  {
    name: 'GET /oauth/token (scrypt check)',
    request: () =>
      fetch(`${base}/oauth/token?grant_type=client_credentials`, { headers: { authorization: basic } }),
  },
];

async function measure({ request }) {
  const latencies = [];
  let failures = 0;
  let sequence = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const response = await request(sequence++);
        await response.arrayBuffer();
        if (!response.ok) failures++;
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), failures };
}

// Warm-up, then each scenario once, in order, with the baseline first.
await measure({ request: scenarios[0].request });
const results = [];
for (const scenario of scenarios) results.push({ ...scenario, ...(await measure(scenario)) });
await new Promise((resolve) => {
  server.once('exit', resolve);
  server.kill('SIGTERM');
});
if (env.PLATFORM_DATABASE_SCHEMA) {
  // Leave the database as we found it.
  const { default: pg } = await import('pg');
  const connection = new pg.Client({ connectionString: env.DATABASE_URL });
  await connection.connect();
  await connection.query(`DROP SCHEMA IF EXISTS "${env.PLATFORM_DATABASE_SCHEMA}" CASCADE`);
  await connection.end();
}

const baseline = results[0].rps;
console.log(
  `\nReference server throughput — ${database}, ${concurrency} concurrent connections, ${seconds} s per scenario, Node ${process.version}\n`,
);
console.log('| scenario | req/s | ratio to baseline | p50 ms | p99 ms | failures |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of results) {
  console.log(
    `| ${r.name} | ${r.rps.toFixed(0)} | ${(r.rps / baseline).toFixed(2)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.failures} |`,
  );
}
const failed = results.some((r) => r.failures > 0);
if (failed) {
  console.error('\nSome requests failed: the figures above are not valid.');
  process.exit(1);
}
