// Children in process groups of their own, for test.mjs: a Ctrl-C in the terminal reaches test.mjs
// alone, which forwards it to the group of the step that runs, and after each step whatever the step
// left behind in its group (a server a test spawned and never stopped) is stopped too.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { root } from './toolchain.mjs';

/**
 * Runs a command in a new process group (and session) with inherited stdout/stderr; resolves with
 * its exit code, or the signal that ended it. `onStart` receives the child (to forward signals).
 */
export function runInGroup(command, args, { env = process.env, onStart } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: root,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true,
    });
    child.once('error', reject);
    child.once('spawn', () => onStart?.(child));
    child.once('exit', async (code, signal) => {
      await stopGroup(child.pid);
      resolve({ code, signal });
    });
  });
}

/** Sends a signal to every process of a group; false when the group is gone. */
export function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * The live (not zombie) processes of a group, from /proc. Zombies are left out: some init processes
 * take seconds to reap orphans, and a zombie holds nothing.
 */
function liveMembers(pgid) {
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    // No /proc: whether the group still exists is all we can know.
    return signalGroup(pgid, 0) ? [pgid] : [];
  }
  const members = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return members;
}

/** Stops what is left of a group: SIGTERM, then SIGKILL after the grace period. */
export function stopGroup(pgid, graceMs = 5000) {
  return terminate(
    () => liveMembers(pgid),
    (signal) => signalGroup(pgid, signal),
    `of group ${pgid}`,
    graceMs,
  );
}

/**
 * Stops every live process whose environment holds `name=value` (read from /proc; root reads every
 * process's): children of children that left their process group, e.g. a browser a test launched
 * detached and never closed, still carry the TMPDIR of the run.
 */
export function stopProcessesWithEnv(name, value, graceMs = 5000) {
  const needle = Buffer.from(`\0${name}=${value}\0`);
  const matching = () => {
    let entries;
    try {
      entries = readdirSync('/proc');
    } catch {
      return [];
    }
    return entries
      .filter((entry) => {
        if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return false;
        try {
          const environ = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${entry}/environ`)]);
          return environ.includes(needle) && !isZombie(entry);
        } catch {
          return false; // exited meanwhile, or not ours to read
        }
      })
      .map(Number);
  };
  return terminate(
    matching,
    (signal) => {
      for (const pid of matching()) {
        try {
          process.kill(pid, signal);
        } catch {
          // exited meanwhile
        }
      }
    },
    `with ${name}=${value}`,
    graceMs,
  );
}

function isZombie(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

/** SIGTERM, wait for the processes to go, SIGKILL after the grace period. */
async function terminate(live, send, what, graceMs) {
  if (live().length === 0) return;
  send('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (live().length > 0) {
    if (Date.now() > deadline) {
      console.warn(`(processes ${live().join(', ')} ${what} ignored SIGTERM: killing them)`);
      send('SIGKILL');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
