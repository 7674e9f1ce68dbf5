// One serving process per SQLite data directory. Two servers on one database file would both run the
// webhook dispatcher and the sweeper over the same outbox (events delivered twice, attempts racing), and a
// second `npm start` with only its port moved did exactly that without a word. `serve` takes this lock
// first; the `clients` and `keys` commands do not (they are meant to run beside a live server).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'server.lock';

interface LockRecord {
  pid: number;
  startedAt: string;
  /** The process's command line (/proc, Linux), to tell a reused pid from the server that wrote the lock. */
  command?: string;
}

/** Another live server holds the data directory. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

export interface DataDirLock {
  readonly file: string;
  /** Removes the lock if it is still ours. Idempotent; also runs when the process exits. */
  release(): void;
}

/**
 * Takes `<dataDir>/server.lock` (the directory must exist). A lock whose process is gone, or whose pid now
 * belongs to another program, is stale: it is replaced, and `onStale` says so. A live one throws
 * `DataDirLockedError` naming its pid and start time.
 */
export function lockDataDir(dataDir: string, onStale: (message: string) => void = () => {}): DataDirLock {
  const file = join(dataDir, LOCK_FILE);
  const record: LockRecord = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    ...(commandLineOf(process.pid) !== undefined ? { command: commandLineOf(process.pid) } : {}),
  };
  const content = `${JSON.stringify(record)}\n`;
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, content, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readRecord(file);
    // A second race for the same stale lock: whoever wrote it in between holds it now.
    if (holder && (attempt > 0 || isAlive(holder))) {
      throw new DataDirLockedError(
        `the data directory ${dataDir} is in use by another platform server (pid ${holder.pid}, started ` +
          `${holder.startedAt}): two servers on one SQLite database would both deliver its events. Stop that ` +
          'one, or give this one its own data directory (--data-dir, PLATFORM_DATA_DIR; for npm start: ' +
          `PLATFORM_DATA_DIR=data-2 PORT=3100 npm start). The lock is ${file}.`,
      );
    }
    onStale(
      holder
        ? `removing the stale lock ${file} of pid ${holder.pid} (started ${holder.startedAt}; that server is gone)`
        : `removing the unreadable lock ${file}`,
    );
    rmSync(file, { force: true });
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    if (readRecord(file)?.pid === process.pid) rmSync(file, { force: true });
  };
  process.once('exit', release);
  return { file, release };
}

function readRecord(file: string): LockRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockRecord>;
    return Number.isSafeInteger(record.pid) && (record.pid ?? 0) > 0 ? (record as LockRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the lock's process still runs: its pid exists and, where /proc tells, runs the same command. */
function isAlive(holder: LockRecord): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: a process of another user has the pid, alive.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // Without /proc (macOS) the pid is all we know.
  const commandLine = commandLineOf(holder.pid);
  return holder.command === undefined || commandLine === undefined || commandLine === holder.command;
}

function commandLineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return undefined;
  }
}
