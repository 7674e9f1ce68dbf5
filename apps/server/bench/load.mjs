// The load generator, always in a process of its own so that it never competes with what it measures
// for an event loop: wrk when it is on PATH (C, one thread: the lightest client there is), else
// autocannon in a child node process. The other loads of the benchmark run in a child too: chat messages
// stamped with their send time (event delivery), the TypeScript client beside raw fetch, and the creates
// that fill the mock's memory.
//
// Each run also says how much CPU something else took meanwhile (watchOthers): on a shared machine that,
// not the code, can be what moved a figure.
//
// As a module: pickGenerator, generatorName, runLoad, postStamped, createMany, compareClient,
// watchOthers. As a program it is that child:
//   node apps/server/bench/load.mjs autocannon|stamped|create|client JSON   → one line of JSON on stdout
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** Where a request body says "a value unique to this request" (POST /v1/users needs fresh e-mails). */
export const UNIQUE = '{{unique}}';

const self = fileURLToPath(import.meta.url);

function hasWrk() {
  try {
    execFileSync('wrk', ['-v'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk -v prints its usage and exits 1: it is there.
    return error.code !== 'ENOENT';
  }
}

/** `wrk` when on PATH, else `autocannon`; `requested` forces one. */
export function pickGenerator(requested) {
  if (requested && !['wrk', 'autocannon'].includes(requested))
    throw new Error(`--generator must be wrk or autocannon, got "${requested}"`);
  return requested ?? (hasWrk() ? 'wrk' : 'autocannon');
}

/** "wrk 4.1.0 (1 thread)" or "autocannon 9.0.0", for the report. */
export async function generatorName(generator) {
  if (generator === 'wrk') {
    const { stdout } = await promisify(execFile)('wrk', ['-v']).catch((error) => error);
    return `wrk ${/wrk (\S+)/.exec(stdout ?? '')?.[1] ?? '?'} (1 thread)`;
  }
  const { createRequire } = await import('node:module');
  return `autocannon ${createRequire(import.meta.url)('autocannon/package.json').version}`;
}

/**
 * Drives `target` ({ url, method, headers, body }; UNIQUE in the body is replaced per request) for
 * `duration` seconds on `connections` keep-alive connections, as fast as it answers. Resolves with
 * { requests, rps, p50, p99 (ms), non2xx, errors, others (CPUs taken by others meanwhile, watchOthers) }.
 */
export async function runLoad(target, { generator, duration, connections }) {
  // Each run its own prefix: unique values stay unique across warm-up, runs and databases.
  const unique = target.body?.includes(UNIQUE) ? `${randomBytes(4).toString('hex')}-` : undefined;
  const options = { ...target, unique, duration, connections };
  const others = watchOthers();
  const result = generator === 'wrk' ? await runWrk(options) : await child('autocannon', options);
  return { ...result, rps: result.requests / result.seconds, others: others() };
}

/**
 * CPU ticks so far: the machine's busy ones (steal included), and those of the system measured — this
 * process, its descendants, and PostgreSQL's processes (the server's database is part of what is measured).
 */
function cpuTicks() {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const parents = new Map();
  const used = new Map();
  const postgres = new Set();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // After "pid (comm) ": state ppid … utime(11) stime cutime cstime: reaped children count in cutime.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === 'postgres')
        postgres.add(Number(entry));
      used.set(
        Number(entry),
        Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]),
      );
    } catch {
      // exited meanwhile
    }
  }
  const ours = (pid) => {
    for (let p = pid; p > 1; p = parents.get(p) ?? 0) if (p === process.pid || postgres.has(p)) return true;
    return false;
  };
  let mine = 0;
  for (const [pid, ticks] of used) if (ours(pid)) mine += ticks;
  // Interrupt time is charged to the process that was running: our loopback traffic, mostly.
  return { busy: user + nice + system + irq + softirq + steal, mine };
}

/**
 * Starts watching the CPU; the returned function says how many CPUs (on average, since the start) went to
 * something other than this run: other processes, or the hypervisor (steal). Near 0 on an idle machine.
 */
export function watchOthers() {
  const start = cpuTicks();
  const started = performance.now();
  return () => {
    const end = cpuTicks();
    const seconds = (performance.now() - started) / 1000;
    // USER_HZ is 100 on Linux.
    return Math.max(0, end.busy - start.busy - (end.mine - start.mine)) / 100 / seconds;
  };
}

/**
 * POSTs `target` with UNIQUE in its body replaced by the send time (Date.now()), on `connections`
 * keep-alive connections: `amount` of them as fast as they are answered, or `rate` per second for
 * `duration` seconds, each stamped with its scheduled time (so a slow server cannot hide its backlog).
 * Resolves with { sent, ok, non2xx, errors, startedAt, seconds }.
 */
export const postStamped = (target, options) => child('stamped', { ...target, ...options });

/**
 * POSTs `target` `amount` times, `connections` requests in flight, UNIQUE in its body replaced by a value
 * unique to each request (fresh e-mails: filling a store through its API). Resolves with { ok, non2xx,
 * errors, statuses (non-2xx status → count), seconds, firstId (the `id` of the first request's answer),
 * others (watchOthers) }.
 */
export async function createMany(target, options) {
  const others = watchOthers();
  return { ...(await child('create', { ...target, ...options })), others: others() };
}

/**
 * Sequential GETs of `path` with createPlatformClient and with raw fetch, alternating, `seconds` in all.
 * Resolves with { client, fetch } calls per second, and `others` (watchOthers).
 */
export async function compareClient(options) {
  const others = watchOthers();
  return { ...(await child('client', options)), others: others() };
}

/** Runs this file as a child in `mode`; its last stdout line is the JSON result. */
function child(mode, options) {
  return new Promise((resolve, reject) => {
    const worker = spawn(process.execPath, [self, mode, JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    worker.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code === 0) resolve(JSON.parse(stdout.trim().split('\n').at(-1)));
      else reject(new Error(`load generator (${mode}) exited with ${code}`));
    });
  });
}

// --- wrk -----------------------------------------------------------------------------------------------

/** A Lua string literal (long brackets: no escaping to get wrong). */
const lua = (text) => `[==[${text}]==]`;

/**
 * wrk's script: the request, built once unless its body varies; non-2xx counted in response() (wrk's own
 * error count only sees status > 399); the result as JSON from done().
 */
function wrkScript({ method = 'GET', headers = {}, body, unique }) {
  const lines = [`wrk.method = ${lua(method)}`];
  for (const [name, value] of Object.entries(headers))
    lines.push(`wrk.headers[ ${lua(name)} ] = ${lua(value)}`); // `[[` would open a long string
  if (unique) {
    const [head, tail] = body.split(UNIQUE);
    lines.push(
      'local counter = 0',
      // `id` is the thread's number, set by setup() below.
      `function request() counter = counter + 1; return wrk.format(nil, nil, nil, ${lua(head)} .. ${lua(unique)} .. id .. "-" .. counter .. ${lua(tail)}) end`,
    );
  } else if (body !== undefined) {
    lines.push(`wrk.body = ${lua(body)}`);
  }
  lines.push(
    'local threads = {}',
    'function setup(thread) thread:set("id", #threads); table.insert(threads, thread) end',
    'non2xx = 0',
    'function response(status) if status < 200 or status > 299 then non2xx = non2xx + 1 end end',
    'function done(summary, latency)',
    '  local non2xx_total = 0',
    '  for _, thread in ipairs(threads) do non2xx_total = non2xx_total + thread:get("non2xx") end',
    '  local e = summary.errors',
    '  io.write(string.format(\'BENCH_RESULT {"requests":%d,"seconds":%f,"p50":%f,"p99":%f,"non2xx":%d,"errors":%d}\\n\',',
    '    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e3, latency:percentile(99) / 1e3,',
    '    non2xx_total, e.connect + e.read + e.write + e.timeout))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

async function runWrk(options) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  try {
    const script = join(dir, 'load.lua');
    writeFileSync(script, wrkScript(options));
    // wrk takes whole seconds; its default 2 s timeout would count the token endpoint's queue as errors.
    const args = ['-t1', `-c${options.connections}`, `-d${Math.max(1, Math.round(options.duration))}s`];
    const { stdout } = await promisify(execFile)('wrk', [
      ...args,
      '--timeout',
      '30s',
      '-s',
      script,
      options.url,
    ]);
    const line = /^BENCH_RESULT (.*)$/m.exec(stdout);
    if (!line) throw new Error(`wrk printed no result:\n${stdout}`);
    return JSON.parse(line[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- the child ----------------------------------------------------------------------------------------------

async function autocannonChild({ url, method = 'GET', headers, body, unique, duration, connections }) {
  const { default: autocannon } = await import('autocannon');
  let counter = 0;
  const [head, tail] = unique ? body.split(UNIQUE) : [];
  const result = await autocannon({
    url,
    method,
    headers,
    body,
    connections,
    duration,
    timeout: 30,
    ...(unique && {
      requests: [
        { method, setupRequest: (request) => ({ ...request, body: `${head}${unique}${++counter}${tail}` }) },
      ],
    }),
  });
  return {
    requests: result.requests.total,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function stampedChild({ url, headers, body, connections, amount, rate, duration }) {
  const { Pool } = await import('undici');
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections, pipelining: 1 });
  const [head, tail] = body.split(UNIQUE);
  const counts = { sent: 0, ok: 0, non2xx: 0, errors: 0 };
  const send = async (stamp) => {
    counts.sent++;
    try {
      const response = await pool.request({
        method: 'POST',
        path: target.pathname + target.search,
        headers,
        body: `${head}${stamp}${tail}`,
      });
      await response.body.dump();
      if (response.statusCode >= 200 && response.statusCode < 300) counts.ok++;
      else counts.non2xx++;
    } catch {
      counts.errors++;
    }
  };
  const startedAt = Date.now();
  const started = performance.now();
  if (amount !== undefined) {
    let left = amount;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (left-- > 0) await send(Date.now());
      }),
    );
  } else {
    // Open loop: request k is due at started + k / rate, and carries that time, however late it leaves.
    const total = Math.round(rate * duration);
    const pending = [];
    while (counts.sent < total) {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate) + 1);
      while (counts.sent < due) pending.push(send(Math.round(startedAt + (counts.sent * 1000) / rate)));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(pending);
  }
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { ...counts, startedAt, seconds };
}

async function createChild({ url, headers, body, connections, amount }) {
  const { Pool } = await import('undici');
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections, pipelining: 1 });
  const [head, tail] = body.split(UNIQUE);
  const unique = randomBytes(4).toString('hex');
  const counts = { ok: 0, non2xx: 0, errors: 0, statuses: {}, firstId: undefined };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < amount) {
        const n = next++;
        try {
          const response = await pool.request({
            method: 'POST',
            path: target.pathname + target.search,
            headers,
            body: `${head}${unique}-${n}${tail}`,
          });
          const text = await response.body.text();
          if (response.statusCode >= 200 && response.statusCode < 300) {
            counts.ok++;
            if (n === 0) counts.firstId = JSON.parse(text).id;
          } else {
            counts.non2xx++;
            counts.statuses[response.statusCode] = (counts.statuses[response.statusCode] ?? 0) + 1;
          }
        } catch {
          counts.errors++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { ...counts, seconds };
}

async function clientChild({ baseUrl, clientId, clientSecret, id, seconds }) {
  const { createPlatformClient } = await import('@platform-api/client');
  const client = createPlatformClient({ baseUrl, clientId, clientSecret, scopes: ['user'] });
  const tokenResponse = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials&scope=user',
  });
  const authorization = `Bearer ${(await tokenResponse.json()).access_token}`;
  const calls = {
    fetch: async () => {
      const response = await fetch(`${baseUrl}/v1/users/${id}`, { headers: { authorization } });
      if (!response.ok) throw new Error(`raw fetch: ${response.status}`);
      await response.json();
    },
    client: async () => {
      const { error, response } = await client.GET('/v1/users/{id}', { params: { path: { id } } });
      if (error) throw new Error(`client: ${response.status}`);
    },
  };
  const round = async (call, ms) => {
    const started = performance.now();
    let count = 0;
    while (performance.now() - started < ms) {
      await call();
      count++;
    }
    return { count, ms: performance.now() - started };
  };
  // Warm both paths (JIT, connections, the client's token), then alternate: drift hits both alike.
  await round(calls.fetch, 500);
  await round(calls.client, 500);
  const totals = { fetch: { count: 0, ms: 0 }, client: { count: 0, ms: 0 } };
  const rounds = 4;
  for (let i = 0; i < rounds; i++) {
    for (const name of ['fetch', 'client']) {
      const { count, ms } = await round(calls[name], (seconds * 1000) / (2 * rounds));
      totals[name].count += count;
      totals[name].ms += ms;
    }
  }
  const perSecond = ({ count, ms }) => (count * 1000) / ms;
  return { fetch: perSecond(totals.fetch), client: perSecond(totals.client) };
}

if (process.argv[1] === self) {
  const children = {
    autocannon: autocannonChild,
    stamped: stampedChild,
    create: createChild,
    client: clientChild,
  };
  const [mode, options] = process.argv.slice(2);
  const result = await children[mode](JSON.parse(options));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
