import type { components } from './generated/platform.js';

type OAuthError = components['schemas']['OAuthError'];
type ApiError = components['schemas']['ApiError'];

/**
 * The client could not get an access token: the token endpoint answered with an error (`body` holds the
 * OAuth 2.0 error, e.g. `invalid_client` for a wrong secret), answered 200 without a usable token, or could
 * not be reached (`cause`).
 */
export class PlatformAuthError extends Error {
  override readonly name = 'PlatformAuthError';
  /** HTTP status of the token response; undefined when no response arrived. */
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

/** A platform API call answered with an error status (thrown by helpers such as `paginate`). */
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
}

export function isOAuthError(value: unknown): value is OAuthError {
  return (
    typeof value === 'object' && value !== null && typeof (value as { error?: unknown }).error === 'string'
  );
}
