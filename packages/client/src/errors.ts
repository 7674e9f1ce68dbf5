import type { components } from './generated/platform.js';

type OAuthError = components['schemas']['OAuthError'];
type ApiError = components['schemas']['ApiError'];

/**
 * The client could not get an access token: the token endpoint answered with an error (`body` holds the
 * OAuth 2.0 error, e.g. `invalid_client` for a wrong secret) or answered 200 without a usable token. A token
 * endpoint that does not answer at all is a `PlatformConnectionError`, as for any other call.
 */
export class PlatformAuthError extends Error {
  override readonly name = 'PlatformAuthError';
  /** HTTP status of the token response; undefined when the call itself failed (`cause`). */
  readonly status: number | undefined;
  /** The OAuth 2.0 error body (RFC 6749 §5.2) when the token endpoint sent one. */
  readonly body: OAuthError | undefined;

  constructor(message: string, details: { status?: number; body?: OAuthError; cause?: unknown } = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.body = details.body;
  }

  /** The OAuth 2.0 error code (`invalid_client`, `invalid_scope`, …), if the server sent one. */
  get error(): OAuthError['error'] | undefined {
    return this.body?.error;
  }
}

/**
 * A platform API call answered with an error status. Thrown by helpers such as `paginate`; a plain call
 * returns `{ error, response }` instead, which `PlatformApiError.from` turns into one.
 */
export class PlatformApiError extends Error {
  override readonly name = 'PlatformApiError';
  readonly status: number;
  /** The error body: the general `ApiError`, an `OAuthError` for bearer-token failures, or raw text. */
  readonly body: ApiError | OAuthError | string | undefined;

  constructor(message: string, status: number, body: ApiError | OAuthError | string | undefined) {
    super(message);
    this.status = status;
    this.body = body;
  }

  /** The server's trace id of the failed request (`ApiError.toe`): quote it when reporting a problem. */
  get toe(): string | undefined {
    const body = this.body;
    return typeof body === 'object' && typeof (body as { toe?: unknown }).toe === 'string'
      ? (body as ApiError).toe || undefined
      : undefined;
  }

  /**
   * The error of a call's `{ error, response }`, e.g. `if (result.error) throw PlatformApiError.from(result)`.
   * `what` names the call in the message (default: the URL's path).
   */
  static from(result: { error?: unknown; response: Response }, what?: string): PlatformApiError {
    const { error, response } = result;
    const body = error as PlatformApiError['body'];
    const label = what ?? (response.url ? new URL(response.url).pathname : 'the call');
    const detail =
      typeof body === 'object' && body !== null
        ? 'error' in body
          ? `${body.error}${body.error_description ? `: ${body.error_description}` : ''}`
          : (body.message ?? body.statusReason)
        : response.statusText;
    const toe =
      typeof body === 'object' && body !== null && 'toe' in body && body.toe ? ` (toe ${body.toe})` : '';
    return new PlatformApiError(
      `${label} answered ${response.status}${detail ? ` ${detail}` : ''}${toe}`,
      response.status,
      body,
    );
  }
}

/**
 * No answer came: the connection failed or every attempt timed out, after the retries the client was
 * configured for (`maxRetries`, `timeout`). `cause` is the last attempt's error.
 */
export class PlatformConnectionError extends Error {
  override readonly name = 'PlatformConnectionError';
  /** Whether the last attempt ran out of time (`timeout`) rather than failing to connect. */
  readonly timedOut: boolean;
  /** How many attempts were made, the first included. */
  readonly attempts: number;

  constructor(message: string, details: { cause: unknown; timedOut: boolean; attempts: number }) {
    super(message, { cause: details.cause });
    this.timedOut = details.timedOut;
    this.attempts = details.attempts;
  }
}

export function isOAuthError(value: unknown): value is OAuthError {
  return (
    typeof value === 'object' && value !== null && typeof (value as { error?: unknown }).error === 'string'
  );
}
