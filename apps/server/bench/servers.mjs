// Starts what the benchmark measures, each in a process of its own (never the load generator's): bare
// node:http, the reference server on SQLite or PostgreSQL, the platform mock (stateless, and with
// memory). Also the HTTPS receiver of event deliveries (in the calling process: it only counts) and the
// repository's private PostgreSQL when no URL is given (scripts/postgres, shared with `npm test` so that
// neither stops it under the other).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { freePort } from '@platform-api/test-support';
import {
  forgetStarted,
  recordStarted,
  registerRun,
  releaseRun,
  shouldStop,
} from '../../../scripts/lib/services.mjs';
import { isRoot, root } from '../../../scripts/lib/toolchain.mjs';

const serverCli = join(root, 'apps', 'server', 'dist', 'cli.js');
const mockCli = join(root, 'apps', 'mock', 'dist', 'cli.js');
const bareServer = join(root, 'apps', 'server', 'bench', 'bare-server.mjs');
const bareFastify = join(root, 'apps', 'server', 'bench', 'bare-fastify.mjs');

/** Every process started here and not yet stopped: stopAll() ends them on an interrupted run. */
const live = new Set();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `url` answers 2xx now (a refused connection is a no). */
async function answers(url, headers) {
  try {
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Spawns `node …args` and polls `ready` every 5 ms until it answers 2xx. `readyMs` is spawn → first 2xx:
 * the cold start when `ready` is /readyz.
 */
async function startProcess(name, args, { env = process.env, ready, headers, timeoutMs = 60_000 }) {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const handle = {
    pid: child.pid,
    readyMs: 0,
    /** Undefined while it runs; else how it ended and the end of its stderr. */
    ended() {
      const how = child.exitCode ?? child.signalCode;
      return how === null ? undefined : `${name} exited (${how}):\n${stderr}`;
    },
    async stop() {
      live.delete(handle);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(force);
    },
  };
  live.add(handle);
  while (!(await answers(ready, headers))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      live.delete(handle);
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before answering:\n${stderr}`);
    }
    if (performance.now() - started > timeoutMs) {
      await handle.stop();
      throw new Error(`${name} did not answer ${ready} within ${timeoutMs} ms:\n${stderr}`);
    }
    await sleep(5);
  }
  handle.readyMs = performance.now() - started;
  return handle;
}

export async function stopAll() {
  await Promise.all([...live].map((handle) => handle.stop()));
}

/**
 * The CPU time (user + system) a process has used so far, in seconds, from /proc (USER_HZ is 100); of
 * several processes together when given an array (the mock's front and its Prism).
 */
export function cpuSeconds(pid) {
  if (Array.isArray(pid)) return pid.reduce((sum, one) => sum + cpuSeconds(one), 0);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The VmRSS of a process in KiB, from /proc. */
export function rssKiB(pid) {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

/** The most RSS a process has had so far (VmHWM) in KiB, from /proc. */
export function peakRssKiB(pid) {
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

export async function startBare() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  return { url, ...(await startProcess('bare node:http', [bareServer, String(port)], { ready: url })) };
}

/** One Fastify route with Fastify's defaults, answering what startBare() answers. */
export async function startBareFastify() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  return { url, ...(await startProcess('bare Fastify', [bareFastify, String(port)], { ready: url })) };
}

/**
 * The mock of the platform API (apps/mock's CLI: Prism in a child process behind the mock's node:http front,
 * which is `pid`). `stateless`: Prism's examples and any credentials (`--stateless`), ready once
 * `/v1/users/964382593` answers. Otherwise the mock with memory, holding at most `maxItems` items a tenant,
 * ready once its token endpoint issues a token to `basic` (which makes that client's secret stick).
 * `nodeArgs` go to the front's node (`--cpu-prof`), not to Prism's.
 */
export async function startMock({ stateless = false, maxItems, basic, nodeArgs = [] }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { ...process.env, MOCK_PLATFORM_PORT: String(port) };
  const args = [...nodeArgs, mockCli, 'platform'];
  if (stateless) args.push('--stateless');
  if (maxItems !== undefined) args.push('--max-items', String(maxItems));
  const handle = await startProcess(`the mock (${stateless ? 'stateless' : 'with memory'})`, args, {
    env,
    ...(stateless
      ? { ready: `${url}/v1/users/964382593`, headers: { authorization: 'Bearer any-token' } }
      : { ready: `${url}/oauth/token?grant_type=client_credentials`, headers: { authorization: basic } }),
  });
  // Prism is the front's one child process (started before the front answers).
  const [prismPid] = childPids(handle.pid);
  const stopFront = handle.stop;
  // A front that died without stopping its Prism leaves it running: stopped here then.
  handle.stop = async () => {
    await stopFront();
    try {
      if (readFileSync(`/proc/${prismPid}/cmdline`, 'utf8').includes('prism'))
        process.kill(prismPid, 'SIGTERM');
    } catch {
      // gone with the front, as it should be
    }
  };
  return { url, prismPid, ...handle };
}

/** The processes whose parent is `pid`, from /proc. */
function childPids(pid) {
  const children = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return children;
}

/**
 * The reference server's environment: the benchmark's settings (no logs, no dev instance, no rate limit)
 * on SQLite in `dataDir`, or on PostgreSQL in `schema`; loopback webhook targets allowed and `caFile`
 * trusted, for the event delivery measurement.
 */
export function referenceEnv({ dataDir, databaseUrl, schema, caFile }) {
  const env = {
    ...process.env,
    LOG_LEVEL: 'silent',
    PLATFORM_BOOTSTRAP: 'false',
    PLATFORM_RATE_LIMIT: '0',
    PLATFORM_DATA_DIR: dataDir,
    PLATFORM_WEBHOOK_ALLOWLIST: '127.0.0.1/32,::1',
    PLATFORM_WEBHOOK_CA_FILE: caFile,
    NODE_EXTRA_CA_CERTS: caFile,
  };
  delete env.DATABASE_URL;
  delete env.PLATFORM_DATABASE_SCHEMA;
  if (databaseUrl) Object.assign(env, { DATABASE_URL: databaseUrl, PLATFORM_DATABASE_SCHEMA: schema });
  return env;
}

/** `clients create` with every scope (before `serve`: it also migrates the database). */
export function createClient(env) {
  return JSON.parse(
    execFileSync(
      process.execPath,
      [serverCli, 'clients', 'create', '--instance', 'bench', '--scopes', 'user,data,chat', '--json'],
      { cwd: root, env, encoding: 'utf8' },
    ),
  );
}

/** `serve` on a free port; `nodeArgs` go to node itself (`--cpu-prof`, which NODE_OPTIONS refuses). */
export async function startReference(env, nodeArgs = []) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const handle = await startProcess(
    'the reference server',
    [...nodeArgs, serverCli, 'serve', '--port', String(port), '--host', '127.0.0.1', '--public-url', url],
    { env, ready: `${url}/readyz` },
  );
  return { url, ...handle };
}

/**
 * A local HTTPS server that answers every POST with 204 and hands `onRequest` its headers, body and
 * arrival time (Date.now(): the same clock as the sender's stamps, other process, same machine).
 */
export async function startReceiver(certificate, onRequest) {
  const server = https.createServer(
    { key: certificate.key, cert: certificate.cert, keepAliveTimeout: 60_000 },
    (request, response) => {
      const chunks = [];
      request.on('data', (chunk) => chunks.push(chunk));
      request.on('end', () => {
        const at = Date.now();
        response.writeHead(204).end();
        onRequest({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at });
      });
    },
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: (path) => `https://127.0.0.1:${server.address().port}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

/**
 * A receiver that fails every delivery, for the isolation scenario: `hang` accepts the request and never
 * answers (the sender's timeout ends each attempt), a number answers that status at once. Counts the
 * requests it got and, for `hang`, how many it holds open now and at most.
 */
export async function startFailingReceiver(certificate, behaviour) {
  const open = new Set();
  const stats = { requests: 0, open: 0, maxOpen: 0 };
  const server = https.createServer(
    { key: certificate.key, cert: certificate.cert, keepAliveTimeout: 60_000 },
    (request, response) => {
      stats.requests++;
      request.resume();
      if (behaviour !== 'hang') {
        request.on('end', () => response.writeHead(behaviour).end());
        return;
      }
      open.add(response);
      stats.open = open.size;
      stats.maxOpen = Math.max(stats.maxOpen, open.size);
      response.on('close', () => {
        open.delete(response);
        stats.open = open.size;
      });
    },
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    stats,
    url: (path) => `https://127.0.0.1:${server.address().port}${path}`,
    close: () =>
      new Promise((resolve) => {
        for (const response of open) response.destroy();
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

const postgresScript = 'scripts/postgres/postgres.sh';

/**
 * A PostgreSQL URL: PLATFORM_TEST_DATABASE_URL or DATABASE_URL when set (used, never stopped), else the
 * repository's private cluster brought up as `npm test` does and stopped by release() if this run started
 * it. `{ skipped: reason }` when none can be had.
 */
export function providePostgres() {
  const given = process.env.PLATFORM_TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (given) return { url: given, release() {} };
  const installed =
    existsSync('/usr/lib/postgresql') &&
    readdirSync('/usr/lib/postgresql').some((v) =>
      existsSync(join('/usr/lib/postgresql', v, 'bin', 'initdb')),
    );
  if (!installed && !(isRoot && existsSync('/usr/bin/apt-get'))) {
    return {
      skipped:
        "its server is not installed, and installing it needs root and apt-get; install Debian's postgresql or set PLATFORM_TEST_DATABASE_URL",
    };
  }
  registerRun();
  const responsible = shouldStop('PostgreSQL', postgresScript);
  // Its progress goes to stderr: stdout is the report.
  const up = spawnSync('bash', [postgresScript, 'up'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (up.status === 0 && responsible) recordStarted('PostgreSQL', postgresScript);
  const release = () => {
    const others = releaseRun();
    if (!responsible || others.length > 0) return;
    spawnSync('bash', [postgresScript, 'stop'], { cwd: root, stdio: ['ignore', 2, 2] });
    forgetStarted('PostgreSQL');
  };
  if (up.status !== 0) {
    release();
    return {
      skipped: `bash ${postgresScript} up failed (exit ${up.status ?? up.signal}; its output is above)`,
    };
  }
  const env = spawnSync('bash', [postgresScript, 'env'], { cwd: root, encoding: 'utf8' }).stdout ?? '';
  const url = /^export PLATFORM_TEST_DATABASE_URL=(\S+)$/m.exec(env)?.[1];
  if (!url) {
    release();
    return { skipped: `bash ${postgresScript} env printed no PLATFORM_TEST_DATABASE_URL` };
  }
  return { url, release };
}

/** Runs `sql` on the database at `url` (pg, the server's own driver); the rows. */
export async function query(url, sql) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}
