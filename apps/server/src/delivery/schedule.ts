// When to try a failed delivery again. The configured schedule (default 5 s, 5 min, 30 min, 2 h, 5 h,
// 10 h, 10 h) is the exponential backoff ceiling of each retry; the actual wait is "full jitter"
// (uniform in [0, ceiling]) so that many deliveries failing together do not all come back at once.

/** Delay before retry number `retry` (1-based), or undefined when the schedule is exhausted. */
export function retryDelayMs(
  retry: number,
  scheduleMs: readonly number[],
  random: () => number = Math.random,
): number | undefined {
  const ceiling = scheduleMs[retry - 1];
  if (ceiling === undefined) return undefined;
  return Math.floor(random() * ceiling);
}

/** Upper bound for a receiver's Retry-After: the longest step of the schedule. */
export function retryAfterCapMs(scheduleMs: readonly number[]): number {
  return Math.max(0, ...scheduleMs);
}

/**
 * Parses a Retry-After header (RFC 9110: delay-seconds or an HTTP-date) into a delay in ms from `nowMs`.
 * Undefined when absent or unparseable; never negative.
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date always names its day or month; this keeps Date.parse from reading "-5" as a year.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * The retry decision after a retryable failure of attempt number `attempt` (1-based): the delay before the
 * next one, or undefined when the schedule is exhausted. The delay is the schedule's jittered one, or the
 * receiver's Retry-After when that is longer — capped at the longest step, so a receiver cannot park a
 * delivery beyond the schedule.
 */
export function nextRetryDelayMs(
  attempt: number,
  retryAfter: string | undefined,
  nowMs: number,
  scheduleMs: readonly number[],
  random: () => number = Math.random,
): number | undefined {
  const jittered = retryDelayMs(attempt, scheduleMs, random);
  if (jittered === undefined) return undefined;
  const requested = parseRetryAfterMs(retryAfter, nowMs);
  return requested === undefined
    ? jittered
    : Math.max(jittered, Math.min(requested, retryAfterCapMs(scheduleMs)));
}
