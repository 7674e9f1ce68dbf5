import { isOAuthError, PlatformAuthError, PlatformConnectionError } from './errors.js';
import type { components } from './generated/platform.js';
import { basicAuthorization } from './http.js';

type TokenRequest = components['schemas']['TokenRequest'];
type TokenResponse = components['schemas']['TokenResponse'];

export interface TokenProviderOptions {
  /** Absolute URL of the token endpoint. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Scopes to request; none = every scope granted to the client. */
  scopes: readonly string[];
  fetch: (input: Request) => Promise<Response>;
  /** Refresh this many seconds before expiry (capped at half the token's lifetime). */
  refreshMarginSeconds: number;
}

export interface TokenProvider {
  /** A valid access token: the cached one, or a fresh one shared by every concurrent caller. */
  getToken(): Promise<string>;
  /** Forget `token` if it is the cached one (the server rejected it); a newer token is kept. */
  invalidate(token: string): void;
}

interface CachedToken {
  accessToken: string;
  /** Epoch milliseconds after which the token is refreshed before use. */
  refreshAt: number;
}

/** Client-credentials tokens (RFC 6749 §4.4), cached until shortly before they expire, fetched single-flight. */
export function createTokenProvider(options: TokenProviderOptions): TokenProvider {
  let cached: CachedToken | undefined;
  let inFlight: Promise<string> | undefined;

  async function requestToken(): Promise<CachedToken> {
    const parameters: TokenRequest = { grant_type: 'client_credentials' };
    if (options.scopes.length > 0) parameters.scope = options.scopes.join(' ');
    const request = new Request(options.tokenUrl, {
      method: 'POST',
      headers: {
        Authorization: basicAuthorization(options.clientId, options.clientSecret),
        'Content-Type': 'application/x-www-form-urlencoded',
        Accept: 'application/json',
      },
      body: new URLSearchParams(parameters).toString(),
    });
    // Expiry counts from when the request was sent: the server's clock started no earlier than that.
    const requestedAt = Date.now();
    let response: Response;
    try {
      response = await options.fetch(request);
    } catch (cause) {
      // No answer is a connection failure, whichever call needed the token: the README's "Timeouts and
      // retries" promises a PlatformConnectionError for it (with `attempts` and `timedOut`).
      if (cause instanceof PlatformConnectionError) throw cause;
      throw new PlatformAuthError(`token request to ${options.tokenUrl} failed: ${String(cause)}`, { cause });
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      const oauthError = isOAuthError(body) ? body : undefined;
      const reason = oauthError
        ? `${oauthError.error}${oauthError.error_description ? `: ${oauthError.error_description}` : ''}`
        : text.slice(0, 200) || response.statusText;
      throw new PlatformAuthError(`token request failed with ${response.status}: ${reason}`, {
        status: response.status,
        ...(oauthError ? { body: oauthError } : {}),
      });
    }
    const token = body as Partial<TokenResponse> | undefined;
    if (
      typeof token?.access_token !== 'string' ||
      token.access_token === '' ||
      typeof token.expires_in !== 'number' ||
      !(token.expires_in >= 0)
    ) {
      throw new PlatformAuthError('token response has no access_token and expires_in', {
        status: response.status,
      });
    }
    const lifetimeMs = token.expires_in * 1000;
    const marginMs = Math.min(options.refreshMarginSeconds * 1000, lifetimeMs / 2);
    return { accessToken: token.access_token, refreshAt: requestedAt + lifetimeMs - marginMs };
  }

  return {
    getToken() {
      if (cached && Date.now() < cached.refreshAt) return Promise.resolve(cached.accessToken);
      inFlight ??= requestToken()
        .then((fresh) => {
          cached = fresh;
          return fresh.accessToken;
        })
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
    invalidate(token) {
      if (cached?.accessToken === token) cached = undefined;
    },
  };
}
