// SQLite WAL checkpoints off the event loop. A checkpoint copies the WAL's pages into the database file
// and syncs both; run by SQLite itself (wal_autocheckpoint, every 1,000 pages) it happens inside a commit,
// on the one thread that also answers requests: at a few thousand writes a second that was a few dozen
// checkpoints a second, each blocking everything for its two fsyncs. Here a worker
// thread with a connection of its own checkpoints whenever this connection wrote since the last time.
// A PASSIVE checkpoint never blocks writers or readers, so commits go on meanwhile; because they do, the
// WAL is only reset once a checkpoint catches up, and the connection's own auto-checkpoint stays as a
// bound on its size (it then finds little left to copy).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** How often the worker checkpoints while there are writes. */
const CHECKPOINT_INTERVAL_MS = 100;
/** The connection's own auto-checkpoint: a bound on the WAL (pages) should the worker fall behind. */
const WAL_BOUND_PAGES = 10_000;

// CommonJS, evaluated in the worker. busy_timeout 0: a checkpoint that cannot go now waits for the next turn.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // A full disk or an I/O error: the writes themselves report it; the next turn tries again.
  }
  parentPort.postMessage('done');
});
`;

export interface Checkpointer {
  /** Stops checkpointing and closes the worker's connection. */
  close(): Promise<void>;
}

/** Checkpoints `path`'s WAL from a worker thread while `file` (its main connection) writes. */
export function startCheckpointer(path: string, file: SQLite.Database): Checkpointer {
  const totalChanges = file.prepare('select total_changes()').pluck();
  let seen = totalChanges.get();
  let worker: Worker | undefined;
  let running = false;
  let failed = false;
  let exited = false;
  file.pragma(`wal_autocheckpoint = ${WAL_BOUND_PAGES}`);
  const fallBack = () => {
    // Without the worker, SQLite checkpoints in the commits again, as by default.
    failed = true;
    if (file.open) file.pragma('wal_autocheckpoint = 1000');
  };
  const start = () => {
    const started = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file: path },
    });
    started.unref();
    started.on('message', () => {
      running = false;
    });
    started.on('error', fallBack);
    started.on('exit', () => {
      exited = true;
    });
    return started;
  };
  const timer = setInterval(() => {
    if (running || failed) return;
    const now = totalChanges.get();
    if (now === seen) return;
    seen = now;
    running = true;
    worker ??= start();
    worker.postMessage('checkpoint');
  }, CHECKPOINT_INTERVAL_MS);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      if (!worker || exited) return;
      const exit = new Promise((resolve) => worker?.once('exit', resolve));
      worker.postMessage('close');
      await exit;
    },
  };
}
