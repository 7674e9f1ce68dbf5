// Which services `npm test` runs started, so that each run stops exactly those at its end — and not
// while another `npm test` of this checkout still uses them. State in <repo>/.state/test-runs/:
//   runs/<pid>        one file per live `npm test` run (a lease)
//   started/<name>    a service a run started: the `status` line it printed right after `up`
// A service that was running before (and is not recorded in started/ with the same status line) was
// started by someone else and is never stopped. Services are driven by their scripts' commands:
// `status` (exit 0 when running), `up` (idempotent), `stop`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './toolchain.mjs';

const stateDir = join(root, '.state', 'test-runs');
const runsDir = join(stateDir, 'runs');
const startedDir = join(stateDir, 'started');

function status(script) {
  const result = spawnSync('bash', [script, 'status'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return { running: result.status === 0, line: (result.stdout ?? '').trim() };
}

const isAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
};

/** The pids of the other live `npm test` runs of this checkout (stale leases are removed). */
function otherRuns() {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir)
    .map(Number)
    .filter((pid) => {
      if (pid === process.pid) return false;
      if (isAlive(pid)) return true;
      rmSync(join(runsDir, String(pid)), { force: true });
      return false;
    });
}

export function registerRun() {
  mkdirSync(runsDir, { recursive: true });
  mkdirSync(startedDir, { recursive: true });
  writeFileSync(join(runsDir, String(process.pid)), `${new Date().toISOString()}\n`);
}

/**
 * Before `up`: whether this run is responsible for stopping the service — it is not running yet, or a
 * run of `npm test` started it (the same status line as recorded then).
 */
export function shouldStop(name, script) {
  const now = status(script);
  if (!now.running) return true;
  const recorded = join(startedDir, name);
  return existsSync(recorded) && readFileSync(recorded, 'utf8') === now.line;
}

/** After a successful `up` of a service this run is responsible for: records its status line. */
export function recordStarted(name, script) {
  const now = status(script);
  if (now.running) writeFileSync(join(startedDir, name), now.line);
}

/**
 * At the end of the run: drops this run's lease; the pids of other live runs, which keep using the
 * services (then nothing may be stopped now: the last run to end stops them).
 */
export function releaseRun() {
  rmSync(join(runsDir, String(process.pid)), { force: true });
  return otherRuns();
}

export function forgetStarted(name) {
  rmSync(join(startedDir, name), { force: true });
}
