// A target's rate limit is its policy, not a defect: the clients of a run share one Throttle, which waits
// before a request while the target has said its window is spent (`RateLimit-Remaining: 0` with
// `RateLimit-Reset`), and sends a request again after a 429 once the advertised wait (`Retry-After`, else
// `RateLimit-Reset`) is over — within a budget for the whole run. Past the budget the run stops with that
// cause (TargetThrottled) instead of reporting every 429 as a failed check.

/** What the throttle reads of an answer: its status and its rate-limit headers. */
interface ThrottledAnswer {
  status: number;
  headers: Headers;
}

/** Thrown when the target keeps a run waiting longer than its throttle budget. */
export class TargetThrottled extends Error {}

export interface ThrottleOptions {
  /** How long the run may wait for the target in all (default 10 minutes). */
  budgetMs?: number;
  /**
   * The least time between the starts of two requests (`--rate-limit`): the user's own pace, asked for
   * rather than imposed by the target, so it is neither counted as waiting nor held to the budget.
   */
  minIntervalMs?: number;
  /** For tests: the clock and the wait. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** A 429 whose advertised wait is zero or absent is sent again after this long. */
const DEFAULT_WAIT_MS = 1000;
/** Resending one request more often than this means the target will not serve it. */
const MAX_RETRIES_PER_REQUEST = 20;
export const DEFAULT_THROTTLE_BUDGET_MS = 600_000;

export class Throttle {
  /** 429 answers waited out. */
  throttled = 0;
  /** Time spent waiting for the target, for 429s and for spent windows. */
  waitedMs = 0;
  readonly budgetMs: number;
  readonly minIntervalMs: number;
  private nextSlot = 0;
  private resumeAt = 0;
  private resumeWhy = '';
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: ThrottleOptions = {}) {
    this.budgetMs = options.budgetMs ?? DEFAULT_THROTTLE_BUDGET_MS;
    this.minIntervalMs = options.minIntervalMs ?? 0;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * Sends through `send`, waiting as the target asks; returns the first answer that is not a 429. Throws
   * TargetThrottled when the waits would exceed the budget.
   */
  async run<A extends ThrottledAnswer>(send: () => Promise<A>): Promise<A> {
    for (let retries = 0; ; retries++) {
      if (this.resumeAt > this.now()) await this.wait(this.resumeAt - this.now());
      await this.pace();
      const answer = await send();
      const resetMs = seconds(answer.headers.get('ratelimit-reset'));
      if (answer.status !== 429) {
        if (answer.headers.get('ratelimit-remaining') === '0' && resetMs !== undefined)
          this.pauseUntil(this.now() + resetMs, 'RateLimit-Remaining: 0');
        return answer;
      }
      if (retries >= MAX_RETRIES_PER_REQUEST)
        throw new TargetThrottled(`the target answered 429 to the same request ${retries + 1} times`);
      this.throttled += 1;
      const waitMs =
        retryAfterMs(answer.headers.get('retry-after'), this.now()) ?? resetMs ?? DEFAULT_WAIT_MS;
      this.pauseUntil(this.now() + (waitMs > 0 ? waitMs : DEFAULT_WAIT_MS), 'a 429');
    }
  }

  /** Takes the next slot of the user's pace; concurrent callers queue one interval apart. */
  private async pace(): Promise<void> {
    if (this.minIntervalMs === 0) return;
    const slot = Math.max(this.now(), this.nextSlot);
    this.nextSlot = slot + this.minIntervalMs;
    if (slot > this.now()) await this.sleep(slot - this.now());
  }

  private pauseUntil(at: number, why: string): void {
    if (at <= this.resumeAt) return;
    this.resumeAt = at;
    this.resumeWhy = why;
  }

  private async wait(ms: number): Promise<void> {
    if (this.waitedMs + ms > this.budgetMs) {
      throw new TargetThrottled(
        `the target's rate limit outlasted the run's budget: after ${Math.round(this.waitedMs / 1000)} s of waiting, ${this.resumeWhy} asks for ${Math.ceil(ms / 1000)} s more (--throttle-budget ${Math.round(this.budgetMs / 1000)} s)`,
      );
    }
    this.waitedMs += ms;
    await this.sleep(ms);
  }
}

/** A header of delta-seconds, in milliseconds. */
function seconds(value: string | null): number | undefined {
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value) * 1000 : undefined;
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const delta = seconds(value);
  if (delta !== undefined) return delta;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
