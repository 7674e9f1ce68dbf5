// `npm test`: installs everything the tests need and runs all of them through turbo.
// - the workspace (pnpm, frozen lockfile);
// - when this machine lets us (root with apt-get): Debian's Chromium for the docs browser test, real
//   WordPress sites for the site contract tests (scripts/wordpress) and a private PostgreSQL for the
//   PostgreSQL runs of the server and contract suites (scripts/postgres). Otherwise those suites print
//   loudly that they were skipped and why (and fail under CI=true);
// - then lint, typecheck and test of every package, and a one-line total;
// - at the end, however it ends (pass, fail, error, Ctrl-C, SIGTERM): stops the services this run
//   started (not those that were already running or that the environment points to) unless
//   PLATFORM_KEEP_SERVICES=1, and removes the run's temp folder (TMPDIR of every test).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { runInGroup, signalGroup, stopProcessesWithEnv } from './lib/processes.mjs';
import { forgetStarted, recordStarted, registerRun, releaseRun, shouldStop } from './lib/services.mjs';
import { installCommand, isRoot, log, pnpmCommand, root, turboEnv } from './lib/toolchain.mjs';

const ci = process.env.CI === 'true';
const keepServices = /^(1|true|yes)$/i.test(process.env.PLATFORM_KEEP_SERVICES ?? '');
const canInstall = isRoot && existsSync('/usr/bin/apt-get');
const wordpressScript = 'scripts/wordpress/wordpress.sh';
const postgresScript = 'scripts/postgres/postgres.sh';

/** Services this run is responsible for (see lib/services.mjs), stopped at the end, last first. */
const started = [];
/** What could not be provisioned: repeated next to the totals, and a failure under CI=true. */
const problems = [];

// --- signals: forwarded to the step that runs (its own process group), then the normal teardown ---
const signalNumbers = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
let interrupted;
let running; // the child of the current step
let tearingDown = false;
function interrupt(signal, why = signal) {
  if (tearingDown || interrupted) {
    console.error(`\n(${why}: already stopping; letting the services stop cleanly)`);
    return;
  }
  interrupted = signal;
  console.error(`\n*** ${why}: ending the run, then stopping what it started ***`);
  if (running) signalGroup(running.pid, signal);
}
for (const signal of Object.keys(signalNumbers)) process.on(signal, () => interrupt(signal));
// npm runs us through `sh -c`: a SIGTERM to npm alone ends npm and sh and never reaches us. A parent
// gone (we were re-parented) ends the run as a SIGTERM would.
const parent = process.ppid;
const parentWatch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(parentWatch);
  interrupt('SIGTERM', `the parent process (pid ${parent}) is gone`);
}, 1000).unref();

class Interrupted extends Error {}

/** Runs one step in its own process group; throws when it fails (unless `allowFailure`). */
async function step(command, args, { env = process.env, allowFailure = false } = {}) {
  if (interrupted) throw new Interrupted();
  const { code, signal } = await runInGroup(command, args, {
    env,
    onStart: (child) => {
      running = child;
    },
  });
  running = undefined;
  if (interrupted) throw new Interrupted();
  if (code !== 0 && !allowFailure)
    throw new Error(`${command} ${args.join(' ')} failed with ${code ?? signal}`);
  return code === 0;
}

/** A quick command's stdout. */
function capture(command, args) {
  return (
    spawnSync(command, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).stdout ??
    ''
  );
}

function skipLoudly(message) {
  console.warn(`\n*** ${message} ***\n`);
  problems.push(message);
}

// --- the run's temp folder ---------------------------------------------------------------------------
// Every test process gets TMPDIR = one folder of this run, removed at the end: whatever a test leaves
// in its temp dir does not outlive the run. Folders of earlier runs that were killed (their pid is
// gone) are removed first.
const tempPrefix = 'platform-api-test-';
for (const entry of readdirSync(tmpdir())) {
  const pid = Number(entry.slice(tempPrefix.length).split('-')[0]);
  if (!entry.startsWith(tempPrefix) || !Number.isInteger(pid) || pid <= 0) continue;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code === 'ESRCH') rmSync(join(tmpdir(), entry), { recursive: true, force: true });
  }
}
const runTemp = mkdtempSync(join(tmpdir(), `${tempPrefix}${process.pid}-`));

// --- provisioning ----------------------------------------------------------------------------------------
async function installWorkspace() {
  const { description, command, args, env } = installCommand();
  log(description);
  await step(command, args, { env });
}

async function ensureChromium() {
  if (existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium')) return;
  if (!canInstall) {
    skipLoudly(
      'Chromium is missing and cannot be installed here (needs root and apt-get): the docs browser test will be skipped',
    );
    return;
  }
  log("Installing Debian's Chromium for the docs browser test");
  await step('apt-get', ['update', '-qq']);
  await step(
    'apt-get',
    ['install', '-y', '-qq', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=600', 'chromium'],
    { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } },
  );
}

/**
 * Brings a service up with its script's `up` (idempotent). This run stops it at the end only if it
 * was not running before, or an earlier `npm test` started it (then PLATFORM_KEEP_SERVICES kept it).
 */
async function upService(name, script) {
  const responsible = shouldStop(name, script);
  if (responsible) started.push({ name, script });
  else console.log(`(${name} was already running, started by someone else: this run leaves it running)`);
  const up = await step('bash', [script, 'up'], { allowFailure: true });
  if (up && responsible) recordStarted(name, script);
  return up;
}

async function ensureWordPress() {
  if (process.env.WORDPRESS_URL) {
    log(`Using the WordPress at ${process.env.WORDPRESS_URL}`);
    return;
  }
  if (!canInstall) {
    skipLoudly(
      'WordPress cannot be provisioned here (needs root and apt-get): the site contract tests against it will be skipped',
    );
    return;
  }
  log('Starting real WordPress sites for the site contract tests');
  if (!(await upService('WordPress', wordpressScript))) {
    skipLoudly(
      `${wordpressScript} up failed (above): the site contract tests against WordPress will be skipped`,
    );
  }
}

const postgresInstalled = () =>
  existsSync('/usr/lib/postgresql') &&
  readdirSync('/usr/lib/postgresql').some((version) =>
    existsSync(join('/usr/lib/postgresql', version, 'bin', 'initdb')),
  );

/** The database URL for the suites: the user's, or our private cluster's. */
async function ensurePostgres() {
  if (process.env.PLATFORM_TEST_DATABASE_URL) {
    log(
      `Using the PostgreSQL at ${redact(process.env.PLATFORM_TEST_DATABASE_URL)} (PLATFORM_TEST_DATABASE_URL)`,
    );
    return process.env.PLATFORM_TEST_DATABASE_URL;
  }
  if (!canInstall && !postgresInstalled()) {
    skipLoudly(
      "PostgreSQL cannot be provisioned here (its server is not installed, and installing it needs root and apt-get): the PostgreSQL runs of the server and contract suites will be skipped; install Debian's `postgresql`, or set PLATFORM_TEST_DATABASE_URL",
    );
    return undefined;
  }
  log('Starting a private PostgreSQL for the server and contract suites');
  if (!(await upService('PostgreSQL', postgresScript))) {
    skipLoudly(
      `${postgresScript} up failed (above): the PostgreSQL runs of the server and contract suites will be skipped`,
    );
    return undefined;
  }
  const url = /^export PLATFORM_TEST_DATABASE_URL=(\S+)$/m.exec(
    capture('bash', [postgresScript, 'env']),
  )?.[1];
  if (!url) skipLoudly(`${postgresScript} env printed no PLATFORM_TEST_DATABASE_URL`);
  return url;
}

const redact = (url) => url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');

// --- the tests ---------------------------------------------------------------------------------------------
/** The totals the packages' vitest runs write (vitest.totals.ts, wired in by vitest.shared.ts). */
function vitestReports() {
  const packageDirs = [
    'spec',
    'docs',
    ...['packages', 'apps'].flatMap((group) => readdirSync(join(root, group)).map((dir) => join(group, dir))),
  ];
  return packageDirs
    .map((dir) => join(root, dir, 'test-results', 'totals.json'))
    .filter((file) => existsSync(file));
}

async function runTests(databaseUrl) {
  // Reports of an earlier run must not be counted: turbo restores those of the tasks it takes from cache.
  for (const report of vitestReports()) rmSync(report);
  rmSync(join(root, 'packages', 'contract-tests', 'test-results'), { recursive: true, force: true });

  log('Lint, typecheck and test every package (turbo)');
  const env = { ...turboEnv, TMPDIR: runTemp };
  if (databaseUrl) env.PLATFORM_TEST_DATABASE_URL = databaseUrl;
  const [command, ...prefix] = pnpmCommand();
  // One task per core and one more to fill the waits: turbo's default (10) runs every suite at once, and
  // on 2 cores each then takes twice as long (Prism's start 58 s instead of 26) for no gain in total time
  // (measured on 2 cores: 6 min 48 s with 10, 6 min 35 s with 3).
  const concurrency = availableParallelism() + 1;
  const passed = await step(
    command,
    [
      ...prefix,
      'exec',
      'turbo',
      'run',
      'lint',
      'lint:repo',
      'typecheck',
      'test',
      '--output-logs=new-only',
      '--continue',
      `--concurrency=${concurrency}`,
    ],
    { env, allowFailure: true },
  );

  // One closing line for every vitest run, naming why tests were skipped. A test that did not run because
  // its setup failed (a service that did not start) is a failure there, not a skip (vitest.totals.ts).
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const skipReasons = new Map();
  const failures = [];
  for (const report of vitestReports()) {
    const totalsOfPackage = JSON.parse(readFileSync(report, 'utf8'));
    const where = relative(root, dirname(dirname(report)));
    totals.passed += totalsOfPackage.passed;
    totals.failed += totalsOfPackage.failed;
    totals.skipped += totalsOfPackage.skipped.length;
    for (const { reason } of totalsOfPackage.skipped) {
      const key = `${where}: ${reason}`;
      skipReasons.set(key, (skipReasons.get(key) ?? 0) + 1);
    }
    for (const { test, error } of totalsOfPackage.failures) failures.push(`${where}/${test}: ${error}`);
  }
  const skipped = [...skipReasons].map(([reason, count]) => `${count} × ${reason}`).join('; ');
  if (problems.length > 0) {
    console.log(`\nNot provisioned on this machine${ci ? ' (a failure under CI=true)' : ''}:`);
    for (const problem of problems) console.log(`  - ${problem}`);
  }
  if (failures.length > 0) {
    console.log(`\nFailed (${failures.length}):`);
    for (const failure of failures.slice(0, 50)) console.log(`  - ${failure}`);
    if (failures.length > 50) console.log(`  … and ${failures.length - 50} more (above)`);
  }
  const contractRuns = contractRunSizes();
  if (contractRuns.length > 0)
    console.log(
      `\nContract runs (generated requests per target; reports in packages/contract-tests/test-results): ${contractRuns.join(', ')}`,
    );
  console.log(
    `\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped${skipped ? ` (${skipped})` : ''}`,
  );
  return passed && totals.failed === 0 && !(ci && problems.length > 0);
}

/** `platform-reference-sqlite 6,046 (0 failures found)` for each JUnit report a contract run wrote in this run. */
function contractRunSizes() {
  const dir = join(root, 'packages', 'contract-tests', 'test-results');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.junit.xml'))
    .map((file) => {
      const xml = readFileSync(join(dir, file), 'utf8');
      const requests = [...xml.matchAll(/<property name="requests" value="(\d+)"\/>/g)].reduce(
        (sum, [, count]) => sum + Number(count),
        0,
      );
      const failures = /<testsuites [^>]*failures="(\d+)"/.exec(xml)?.[1] ?? '?';
      return `${file.replace(/\.junit\.xml$/, '')} ${requests.toLocaleString('en')} (${failures} failures found)`;
    });
}

// --- teardown ------------------------------------------------------------------------------------------------
async function teardown() {
  tearingDown = true;
  try {
    const others = releaseRun();
    if (started.length === 0) return;
    const names = started.map((service) => service.name).join(' and ');
    if (others.length > 0) {
      log(`Leaving ${names} running: another npm test of this checkout uses them (pid ${others.join(', ')})`);
    } else if (keepServices) {
      log(`Keeping ${names} running (PLATFORM_KEEP_SERVICES); the next npm test without it stops them, or:`);
      for (const { script } of started) console.log(`  bash ${script} stop`);
    } else {
      log(`Stopping ${names}, started by npm test (PLATFORM_KEEP_SERVICES=1 keeps them running)`);
      for (const { name, script } of started.reverse()) {
        const { code } = await runInGroup('bash', [script, 'stop']);
        if (code === 0) forgetStarted(name);
        else console.error(`*** stopping ${name} failed (bash ${script} stop exited with ${code}) ***`);
      }
    }
  } catch (error) {
    console.error(`*** npm test: teardown: ${error.stack ?? error} ***`);
  } finally {
    // Anything the tests started that outlived them carries the run's TMPDIR.
    await stopProcessesWithEnv('TMPDIR', runTemp).catch(() => {});
    rmSync(runTemp, { recursive: true, force: true });
  }
}

let ok = false;
try {
  registerRun();
  await installWorkspace();
  await ensureChromium();
  await ensureWordPress();
  const databaseUrl = await ensurePostgres();
  ok = await runTests(databaseUrl);
} catch (error) {
  if (!(error instanceof Interrupted)) console.error(`\n*** npm test: ${error.stack ?? error} ***`);
} finally {
  await teardown();
}
process.exit(interrupted ? 128 + signalNumbers[interrupted] : ok ? 0 : 1);
