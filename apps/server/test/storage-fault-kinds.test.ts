import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { StorageHealth, storageFault } from '../src/db/faults.js';

/* Which driver errors are storage faults (503 + Retry-After) and which stay ours (500). */
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('storageFault', () => {
  it.each([
    [withCode('database or disk is full', 'SQLITE_FULL'), 'refuses-writes'],
    [withCode('attempt to write a readonly database', 'SQLITE_READONLY'), 'refuses-writes'],
    [withCode('disk I/O error', 'SQLITE_IOERR_WRITE'), 'refuses-writes'],
    [withCode('database is locked', 'SQLITE_BUSY'), 'unreachable'],
    [withCode('could not extend file', '53100'), 'refuses-writes'],
    [withCode('cannot execute INSERT in a read-only transaction', '25006'), 'refuses-writes'],
    [withCode('terminating connection due to administrator command', '57P01'), 'unreachable'],
    [withCode('the database system is starting up', '57P03'), 'unreachable'],
    [withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), 'unreachable'],
    [new Error('Connection terminated unexpectedly'), 'unreachable'],
    [new Error('timeout exceeded when trying to connect'), 'unreachable'],
    [new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''), 'unreachable'],
  ])('%s → %s', (error, kind) => {
    expect(storageFault(error)?.kind).toBe(kind);
    expect(storageFault(error)?.cause).toBeTruthy();
  });

  it.each([
    withCode('UNIQUE constraint failed: groups.name', 'SQLITE_CONSTRAINT_UNIQUE'),
    withCode('duplicate key value violates unique constraint', '23505'),
    withCode('syntax error', '42601'),
    new TypeError('x is undefined'),
    'not an error',
  ])('%s is not a storage fault', (error) => {
    expect(storageFault(error)).toBeUndefined();
  });
});

describe('StorageHealth', () => {
  it('logs the cause once per episode and the recovery once', () => {
    const lines: Array<{ msg: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const health = new StorageHealth(logger, 0);
    const full = storageFault(withCode('database or disk is full', 'SQLITE_FULL'));
    if (!full) throw new Error('not a fault');
    for (let i = 0; i < 5; i++) health.failed(full);
    expect(health.fault).toEqual(full);
    health.recovered();
    health.recovered();
    expect(health.fault).toBeUndefined();
    expect(lines.map((line) => line.msg)).toEqual([
      'the database refuses writes (database or disk is full): writes answer 503 until one succeeds again',
      'the database works again: serving normally',
    ]);
  });

  it('resumes an episode silently when the fault returns before the recovery has settled', async () => {
    const lines: Array<{ msg: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const health = new StorageHealth(logger, 50);
    const down = storageFault(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'));
    if (!down) throw new Error('not a fault');
    health.failed(down);
    health.recovered();
    expect(health.fault).toBeUndefined();
    health.failed(down);
    expect(health.fault).toEqual(down);
    health.recovered();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines.map((line) => line.msg)).toEqual([
      'the database is unreachable (connect ECONNREFUSED 127.0.0.1:5432): answering 503 until it is back',
      'the database works again: serving normally',
    ]);
  });
});
