/*
 * In-process fixed-window rate limiting per client (or per IP before authentication). Generous by
 * default (1200 requests a minute); one process's view only — several server processes each count
 * their own traffic, which is documented in the README.
 */
export interface RateLimitDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  hit(key: string): RateLimitDecision {
    if (this.max <= 0) return { allowed: true, retryAfterSeconds: 0 };
    const now = this.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    if (window.count <= this.max) return { allowed: true, retryAfterSeconds: 0 };
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000)),
    };
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
