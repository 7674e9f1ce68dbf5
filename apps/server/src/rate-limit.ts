/*
 * In-process fixed-window rate limiting per client (or per IP before authentication). Generous by
 * default (1200 requests a minute); one process's view only — several server processes each count
 * their own traffic, which is documented in the README.
 *
 * Every counted request learns the state of its window, which the server sends on the response as
 * `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (the spec's components/headers): plain
 * integers any client can read, rather than the later drafts' combined structured field. With the
 * limiter off (max 0) there is no limit to tell, and no header is sent.
 */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window ends (delta-seconds, as RateLimit-Reset carries it). */
  resetSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  retryAfterSeconds: number;
  /** Absent when the limiter is off. */
  state?: RateLimitState;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** Off when its maximum is 0: every request is allowed, and none is told a window. */
  get enabled(): boolean {
    return this.max > 0;
  }

  hit(key: string): RateLimitDecision {
    if (!this.enabled) return { allowed: true, retryAfterSeconds: 0 };
    const now = this.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    const resetSeconds = Math.max(0, Math.ceil((window.start + this.windowMs - now) / 1000));
    const state = { limit: this.max, remaining: Math.max(0, this.max - window.count), resetSeconds };
    if (window.count <= this.max) return { allowed: true, retryAfterSeconds: 0, state };
    return { allowed: false, retryAfterSeconds: Math.max(1, resetSeconds), state };
  }

  /** Drops finished windows so the map cannot grow without bound. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) {
      if (now - window.start >= this.windowMs) this.windows.delete(key);
    }
  }
}

/** The response header fields that tell a client its window's state. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'ratelimit-limit': String(state.limit),
    'ratelimit-remaining': String(state.remaining),
    'ratelimit-reset': String(state.resetSeconds),
  };
}
