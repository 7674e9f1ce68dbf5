// The dispatcher's isolation policy (dispatcher.ts): which attempts may start, given those in flight, so
// that one destination never holds more than its share of the window. Pure bookkeeping: the time comes
// in as an argument (performance.now() in the dispatcher), so it is tested without timers or receivers.

export interface CapSettings {
  /** Attempts in flight at once, all destinations together (the window). */
  concurrency: number;
  /** A healthy subscription's attempts in flight at most. */
  perSubscription: number;
  /** Attempts in flight to one receiver host:port at most. */
  perHost: number;
  /** The webhook POST timeout: an attempt running for a quarter of it (at most a second) is slow. */
  timeoutMs: number;
}

/** An attempt counted as started (start), to be counted as finished (finish). */
export interface StartedAttempt {
  subscription: string;
  host: string;
  startedAt: number;
}

/** A subscription's attempts in flight. */
interface SubscriptionInFlight {
  /** When each started, oldest first. */
  starts: number[];
  /** Whether its latest attempt was answered 2xx. */
  answering: boolean;
}

/** Idle subscriptions remembered as answering (a few hundred kB at most). */
const ANSWERED_REMEMBERED = 10_000;

/*
 * A subscription whose receiver has answered its latest attempt with a 2xx, and has no attempt running
 * longer than a quarter of the timeout (at most a second), may have up to perSubscription attempts in
 * flight; any other (new, failing, slow) at most its share of the window, concurrency ÷ (subscriptions in
 * flight, itself included), and at most a quarter of perSubscription. A receiver host:port has at most
 * perHost. A subscription whose row found its host full waits (is left out of claims) until an attempt
 * to that host finishes.
 */
export class DeliveryCaps {
  /** Attempts in flight per subscription (forgotten when none is) and per receiver host:port. */
  private readonly bySubscription = new Map<string, SubscriptionInFlight>();
  private readonly byHost = new Map<string, number>();
  /** Subscriptions whose rows were handed back because their host was full: left out until it has room. */
  private readonly waitingForHost = new Map<string, Set<string>>();
  /**
   * Subscriptions with nothing in flight whose latest attempt was answered 2xx, so that they start again
   * with their full cap; the most recent ANSWERED_REMEMBERED of them.
   */
  private readonly answered = new Set<string>();

  constructor(private readonly settings: CapSettings) {}

  /** How many attempts the subscription may have in flight at `now`. */
  subscriptionCap(subscription: string, now: number): number {
    const { perSubscription, concurrency, timeoutMs } = this.settings;
    const state = this.bySubscription.get(subscription);
    const slowAfter = Math.min(1000, timeoutMs / 4);
    const answering = state ? state.answering : this.answered.has(subscription);
    const oldest = state?.starts[0];
    if (answering && (oldest === undefined || now - oldest < slowAfter)) return perSubscription;
    const others = this.bySubscription.size - (state ? 1 : 0);
    const share = Math.floor(concurrency / (others + 1));
    return Math.max(1, Math.min(share, Math.floor(perSubscription / 4)));
  }

  /** The subscriptions a claim must leave alone at `now`: full ones, and those waiting for their host. */
  excluded(now: number): string[] {
    const full: string[] = [];
    for (const [id, state] of this.bySubscription) {
      if (state.starts.length >= this.subscriptionCap(id, now)) full.push(id);
    }
    for (const waiting of this.waitingForHost.values()) full.push(...waiting);
    return full;
  }

  /** Counts an attempt as started if its subscription and host have room; undefined if they have not. */
  start(subscription: string, host: string, now: number): StartedAttempt | undefined {
    const state = this.bySubscription.get(subscription) ?? {
      starts: [],
      answering: this.answered.has(subscription),
    };
    const onHost = this.byHost.get(host) ?? 0;
    if (state.starts.length >= this.subscriptionCap(subscription, now)) return undefined;
    if (onHost >= this.settings.perHost) {
      const waiting = this.waitingForHost.get(host) ?? new Set<string>();
      waiting.add(subscription);
      this.waitingForHost.set(host, waiting);
      return undefined;
    }
    state.starts.push(now);
    this.bySubscription.set(subscription, state);
    this.answered.delete(subscription);
    this.byHost.set(host, onHost + 1);
    return { subscription, host, startedAt: now };
  }

  /** Counts the attempt as finished; `delivered`: its receiver answered 2xx. */
  finish(attempt: StartedAttempt, delivered: boolean): void {
    const { subscription, host, startedAt } = attempt;
    const state = this.bySubscription.get(subscription);
    if (state) {
      state.starts.splice(state.starts.indexOf(startedAt), 1);
      state.answering = delivered;
      if (state.starts.length === 0) {
        this.bySubscription.delete(subscription);
        if (delivered) this.remember(subscription);
      }
    }
    const count = (this.byHost.get(host) ?? 0) - 1;
    if (count > 0) this.byHost.set(host, count);
    else this.byHost.delete(host);
    this.waitingForHost.delete(host);
  }

  /** Remembers that the subscription's receiver answers, forgetting the oldest beyond the bound. */
  private remember(subscription: string): void {
    this.answered.add(subscription);
    if (this.answered.size > ANSWERED_REMEMBERED) {
      const oldest = this.answered.values().next().value;
      if (oldest !== undefined) this.answered.delete(oldest);
    }
  }
}
