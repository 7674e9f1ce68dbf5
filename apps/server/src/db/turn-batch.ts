import { storageFault } from './faults.js';

/*
 * Work that waits for the rest of its turn of the event loop, so that what arrives together costs one
 * statement (one round trip, one commit) instead of one each: posted messages with their outbox rows,
 * delivery outcomes, callback tokens, and on PostgreSQL the reads that posting a message starts with.
 * One set of rules for all:
 *
 * - Settle: each caller's promise settles once the flush of its turn has settled, with its own result.
 * - Partial failure: a flush answers item by item (PromiseSettledResult), so one item can fail alone.
 * - Retry: a flush that fails as a whole for a reason that is not a storage fault (a constraint, a
 *   trigger: the fault of one item) is made again item by item, each alone, so that the others still
 *   succeed. A storage fault (db/faults.ts) fails every item of the turn: each alone would fail the same.
 */

/** What a flush answers for each of its items, in their order. */
export type ItemResults<R> = Array<PromiseSettledResult<R>>;

interface Waiting<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/**
 * A function that queues an item for the current turn and resolves with its result once `flush` has
 * handled that turn's items together.
 */
export function batch<T, R = void>(flush: (items: T[]) => Promise<ItemResults<R>>): (item: T) => Promise<R> {
  let waiting: Array<Waiting<T, R>> = [];
  const flushTurn = async () => {
    const turn = waiting;
    waiting = [];
    await flushTogether(flush, turn);
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(() => void flushTurn());
      waiting.push({ item, resolve, reject });
    });
}

async function flushTogether<T, R>(
  flush: (items: T[]) => Promise<ItemResults<R>>,
  turn: Array<Waiting<T, R>>,
): Promise<void> {
  let results: ItemResults<R>;
  try {
    results = await flush(turn.map(({ item }) => item));
  } catch (error) {
    if (turn.length === 1 || storageFault(error)) {
      for (const { reject } of turn) reject(error ?? new Error('not done'));
      return;
    }
    await Promise.all(turn.map((one) => flushTogether(flush, [one])));
    return;
  }
  for (const [index, { resolve, reject }] of turn.entries()) {
    const result = results[index];
    if (result?.status === 'fulfilled') resolve(result.value);
    else reject(result ? (result.reason ?? new Error('not done')) : new Error('no result for this item'));
  }
}

/** Every item of a flush done, with these values. */
export function fulfilled<R>(values: R[]): ItemResults<R> {
  return values.map((value) => ({ status: 'fulfilled', value }));
}
