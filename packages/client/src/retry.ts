// The one place where both clients (and the platform client's token request) survive the network: a
// `fetch` wrapper that bounds each attempt with a timeout and retries what is worth retrying, with
// exponential backoff and jitter, honouring the server's `Retry-After` — as stripe-node and openai-node do.
import { PlatformConnectionError } from './errors.js';
import { unsentCopy } from './http.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 2); 0 turns retrying off. */
  maxRetries?: number;
  /** Milliseconds one attempt may take, response body included (default 60 000). */
  timeout?: number;
  /**
   * Also retry `POST` and `PATCH` (default false). They may have taken effect before the failure (a lost
   * answer, a timeout), so repeating them can act twice; turn this on only where that is harmless.
   */
  retryNonIdempotent?: boolean;
}

export type ResolvedRetryOptions = Required<RetryOptions>;

export const retryDefaults: ResolvedRetryOptions = Object.freeze({
  maxRetries: 2,
  timeout: 60_000,
  retryNonIdempotent: false,
});

export type FetchFunction = (input: Request) => Promise<Response>;

/** `base` with `override` on top, checked (a typo such as a negative timeout fails at construction). */
export function resolveRetryOptions(
  base: ResolvedRetryOptions,
  override: RetryOptions,
  caller: string,
): ResolvedRetryOptions {
  const resolved = {
    maxRetries: override.maxRetries ?? base.maxRetries,
    timeout: override.timeout ?? base.timeout,
    retryNonIdempotent: override.retryNonIdempotent ?? base.retryNonIdempotent,
  };
  if (!Number.isInteger(resolved.maxRetries) || resolved.maxRetries < 0) {
    throw new TypeError(`${caller}: maxRetries must be an integer >= 0`);
  }
  if (!(resolved.timeout > 0) || !Number.isFinite(resolved.timeout)) {
    throw new TypeError(`${caller}: timeout must be a number of milliseconds > 0`);
  }
  return resolved;
}

/** POST and PATCH may act twice when repeated (RFC 9110 §9.2.2); every other method is idempotent. */
const nonIdempotentMethods = new Set(['POST', 'PATCH']);

/**
 * Statuses that may succeed when asked again: a request timeout, a conflict with a concurrent change (lock
 * contention), rate limiting, and server errors. Other 4xx (400, 401, 403, 404, 422, …) will not change
 * by themselves; the platform client handles `401 invalid_token` on its own.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

const initialDelayMs = 500;
const maxDelayMs = 8_000;
/** A server's Retry-After beyond this is not waited for: back off on our own schedule instead. */
const maxRetryAfterMs = 60_000;

/**
 * How long to wait before retry number `retry` (0-based): the server's `retry-after-ms` or `Retry-After`
 * (seconds or an HTTP date) when it gave a usable one, else 0.5 s × 2ⁿ capped at 8 s, minus up to 25 %
 * jitter so that clients turned away together do not come back together.
 */
export function retryDelayMs(retry: number, headers: Headers | undefined, now = Date.now()): number {
  const fromServer = retryAfterMs(headers, now);
  if (fromServer !== undefined) return fromServer;
  const backoff = Math.min(initialDelayMs * 2 ** retry, maxDelayMs);
  return backoff * (1 - Math.random() * 0.25);
}

function retryAfterMs(headers: Headers | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const candidates: (number | undefined)[] = [];
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '') candidates.push(Number(milliseconds));
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null && retryAfter.trim() !== '') {
    const seconds = Number(retryAfter);
    candidates.push(Number.isNaN(seconds) ? Date.parse(retryAfter) - now : seconds * 1000);
  }
  return candidates.find(
    (delay): delay is number =>
      delay !== undefined && Number.isFinite(delay) && delay >= 0 && delay <= maxRetryAfterMs,
  );
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `fetchImpl` with a timeout per attempt and retries: connection errors, timeouts and the statuses of
 * `isRetryableStatus`, for idempotent methods (and POST/PATCH when `retryNonIdempotent`). The request's own
 * `signal` (the caller's) aborts everything and is never retried. After the last attempt the last answer
 * is returned as is, or a `PlatformConnectionError` thrown when no answer came.
 */
export function retryingFetch(fetchImpl: FetchFunction, options: ResolvedRetryOptions): FetchFunction {
  return async (request) => {
    const callerSignal = request.signal;
    const mayRetry = options.retryNonIdempotent || !nonIdempotentMethods.has(request.method.toUpperCase());
    const maxRetries = mayRetry ? options.maxRetries : 0;
    for (let retry = 0; ; retry++) {
      const timeoutSignal = AbortSignal.timeout(options.timeout);
      // Each attempt sends a copy: the original stays unsent for the next one.
      const attempt = new Request(unsentCopy(request), {
        signal: AbortSignal.any([callerSignal, timeoutSignal]),
      });
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await fetchImpl(attempt);
      } catch (error) {
        if (callerSignal.aborted) throw error;
        failure = error;
      }
      const last = retry >= maxRetries;
      if (response && (last || !isRetryableStatus(response.status))) return response;
      if (!response && last) {
        const timedOut = timeoutSignal.aborted;
        throw new PlatformConnectionError(
          `${request.method} ${request.url} ${
            timedOut ? `timed out after ${options.timeout} ms` : 'failed: no answer'
          } (${retry + 1} attempt${retry === 0 ? '' : 's'})`,
          { cause: failure, timedOut, attempts: retry + 1 },
        );
      }
      // Let the connection go back to the pool before waiting.
      await response?.body?.cancel().catch(() => {});
      await sleep(retryDelayMs(retry, response?.headers), callerSignal);
    }
  };
}
