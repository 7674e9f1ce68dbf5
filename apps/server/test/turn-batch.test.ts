import { describe, expect, it } from 'vitest';
import { batch, fulfilled } from '../src/db/turn-batch.js';

// The one mechanism for writes that wait for the rest of their turn: its settle, partial failure and
// retry rules, without a database.

/** A refusal of the kind SQLite and PostgreSQL report for a full disk (db/faults.ts). */
const diskFull = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

describe('batch', () => {
  it('hands the items of one turn to one flush, in order, and each caller gets its own result', async () => {
    const flushes: number[][] = [];
    const double = batch(async (items: number[]) => {
      flushes.push(items);
      return fulfilled(items.map((item) => item * 2));
    });
    const firstTurn = await Promise.all([double(1), double(2), double(3)]);
    const secondTurn = await double(4);
    expect(firstTurn).toEqual([2, 4, 6]);
    expect(secondTurn).toBe(8);
    expect(flushes).toEqual([[1, 2, 3], [4]]);
  });

  it('settles each caller only once its flush has settled', async () => {
    let finish: () => void = () => {};
    const write = batch(
      (items: string[]) =>
        new Promise<ReturnType<typeof fulfilled<void>>>((resolve) => {
          finish = () => resolve(fulfilled(items.map(() => undefined)));
        }),
    );
    let settled = false;
    const pending = write('a').then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.resolve();
    expect(settled).toBe(false);
    finish();
    await pending;
    expect(settled).toBe(true);
  });

  it('fails only the items the flush answers as failed', async () => {
    const write = batch(async (items: string[]) =>
      items.map((item) =>
        item === 'bad'
          ? ({ status: 'rejected', reason: new Error(`refused ${item}`) } as const)
          : ({ status: 'fulfilled', value: item.toUpperCase() } as const),
      ),
    );
    const results = await Promise.allSettled([write('a'), write('bad'), write('c')]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 'A' },
      { status: 'rejected', reason: new Error('refused bad') },
      { status: 'fulfilled', value: 'C' },
    ]);
  });

  it('flushes each item alone after a flush refused as a whole for one item, so that one fails alone', async () => {
    const flushes: string[][] = [];
    const write = batch(async (items: string[]) => {
      flushes.push(items);
      if (items.includes('bad')) throw new Error('constraint violated');
      return fulfilled(items.map(() => undefined));
    });
    const results = await Promise.allSettled([write('a'), write('bad'), write('c')]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(flushes).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('fails every item of the turn at once for a storage fault, without trying each alone', async () => {
    const flushes: string[][] = [];
    const write = batch(async (items: string[]) => {
      flushes.push(items);
      throw diskFull();
    });
    const results = await Promise.allSettled([write('a'), write('b')]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(flushes).toEqual([['a', 'b']]);
  });

  it('fails an item the flush gave no result for', async () => {
    const write = batch(async () => fulfilled<void>([]));
    await expect(write('a')).rejects.toThrow('no result for this item');
  });
});
