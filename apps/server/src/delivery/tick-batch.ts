// Writes that arrive in the same turn of the event loop, made together: one statement (one commit, one
// round trip) for all the attempts that got that far at once, instead of one each.

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
