// Writes and reads that arrive in the same turn of the event loop, made together: one statement (one
// commit, one round trip) for all the attempts that got that far at once, instead of one each.

export class TickBatch<T> {
  private waiting: Array<{ item: T; settle: (error?: unknown) => void }> = [];

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  /** Resolves once the item's batch is written; rejects with the batch's error. */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => void this.flush());
      this.waiting.push({ item, settle: (error) => (error === undefined ? resolve() : reject(error)) });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    try {
      await this.write(batch.map(({ item }) => item));
      for (const { settle } of batch) settle();
    } catch (error) {
      for (const { settle } of batch) settle(error ?? new Error('batch not written'));
    }
  }
}

/** Reads by key in the same turn, made as one read of all the keys (a DataLoader without a cache). */
export class TickLoader<K, V> {
  private waiting = new Map<
    K,
    Array<{ resolve: (value: V | undefined) => void; reject: (error: unknown) => void }>
  >();

  constructor(private readonly read: (keys: K[]) => Promise<Map<K, V>>) {}

  /** The value read for the key, undefined when there is none; rejects with the read's error. */
  load(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) setImmediate(() => void this.flush());
      const callers = this.waiting.get(key) ?? [];
      callers.push({ resolve, reject });
      this.waiting.set(key, callers);
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = new Map();
    try {
      const values = await this.read([...batch.keys()]);
      for (const [key, callers] of batch) for (const { resolve } of callers) resolve(values.get(key));
    } catch (error) {
      for (const callers of batch.values()) for (const { reject } of callers) reject(error);
    }
  }
}
