import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './generated/platform.js';
import { operationSecurity, securitySchemes } from './generated/platform.security.js';
import { joinUrl, unsentCopy } from './http.js';
import {
  type FetchFunction,
  type ResolvedRetryOptions,
  type RetryOptions,
  resolveRetryOptions,
  retryDefaults,
  retryingFetch,
} from './retry.js';
import { createTokenProvider, type TokenProvider } from './token-provider.js';

/** A scope the platform API defines (components.securitySchemes.oauth2). */
export type PlatformScope = keyof typeof securitySchemes.oauth2.flows.clientCredentials.scopes;

export interface PlatformClientOptions extends RetryOptions {
  /** The API's address, e.g. `https://api.example.com` (no trailing `/v1`: the paths carry it). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Scopes to request for the token (`user`, `data`, `chat`); none = every scope granted to the client. */
  scopes?: readonly PlatformScope[];
  /** The fetch under every attempt, the token request's included (proxies, tests). */
  fetch?: FetchFunction;
  /** Refresh a token this many seconds before it expires (default 60, at most half its lifetime). */
  tokenRefreshMarginSeconds?: number;
}

/** A typed client of `Paths` that can hand out copies with other retry settings. */
export type PlatformClientOf<Paths extends {}> = Client<Paths> & {
  /**
   * The same client (same token, same `fetch`) with other `maxRetries`, `timeout` or `retryNonIdempotent`,
   * for the calls made through it: `platform.withOptions({ maxRetries: 0 }).GET('/v1/users')`.
   */
  withOptions(options: RetryOptions): PlatformClientOf<Paths>;
};

export type PlatformClient = PlatformClientOf<paths>;

/** Each operation's security requirements, by path and lowercase method (generated from a bundle). */
export type OperationSecurity = {
  readonly [path: string]: { readonly [method: string]: readonly object[] | undefined } | undefined;
};

const tokenUrl = securitySchemes.oauth2.flows.clientCredentials.tokenUrl;

/**
 * A typed client of the platform API that authenticates with the OAuth 2.0 client-credentials grant:
 * it gets a token before the first call that needs one, reuses it until shortly before it expires, shares
 * one token request among concurrent calls, and retries a call once with a fresh token when the server
 * answers 401 `invalid_token`. Token failures reject the call with a `PlatformAuthError`.
 *
 * Every attempt is bounded by `timeout` (60 s); connection errors, timeouts, 408, 409, 429 and 5xx are
 * retried up to `maxRetries` (2) times with backoff, honouring `Retry-After` — POST and PATCH only with
 * `retryNonIdempotent`.
 */
export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  return buildPlatformClient<paths>(options, operationSecurity, 'createPlatformClient');
}

/** The platform client over any generated `paths` and its security table (the public or the full API). */
export function buildPlatformClient<Paths extends {}>(
  options: PlatformClientOptions,
  security: OperationSecurity,
  caller: string,
): PlatformClientOf<Paths> {
  for (const name of ['baseUrl', 'clientId', 'clientSecret'] as const) {
    if (typeof options[name] !== 'string' || options[name] === '') {
      throw new TypeError(`${caller}: ${name} must be a non-empty string`);
    }
  }
  const margin = options.tokenRefreshMarginSeconds ?? 60;
  if (!Number.isFinite(margin) || margin < 0) {
    throw new TypeError(`${caller}: tokenRefreshMarginSeconds must be a number >= 0`);
  }
  const retry = resolveRetryOptions(retryDefaults, options, caller);
  const fetchImpl = options.fetch ?? ((input: Request) => globalThis.fetch(input));
  const tokens = createTokenProvider({
    tokenUrl: joinUrl(options.baseUrl, tokenUrl),
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scopes: options.scopes ?? [],
    // Asking for a token twice only issues two tokens: safe to retry although it is a POST.
    fetch: retryingFetch(fetchImpl, { ...retry, retryNonIdempotent: true }),
    refreshMarginSeconds: margin,
  });
  const bearer = bearerTokenMiddleware(tokens, security);

  const build = (settings: ResolvedRetryOptions): PlatformClientOf<Paths> => {
    const client = createClient<Paths>({
      baseUrl: options.baseUrl,
      fetch: retryingFetch(fetchImpl, settings),
    });
    client.use(bearer);
    return Object.assign(client, {
      withOptions: (override: RetryOptions) => build(resolveRetryOptions(settings, override, 'withOptions')),
    });
  };
  return build(retry);
}

/** Whether the spec lets this operation authenticate with an `oauth2` bearer token. */
function usesBearerToken(security: OperationSecurity, schemaPath: string, method: string): boolean {
  const requirements = security[schemaPath]?.[method.toLowerCase()];
  // An operation the spec does not know (a path cast by the caller): authenticate, except at the token URL.
  if (!requirements) return schemaPath !== tokenUrl;
  return requirements.some((requirement) => 'oauth2' in requirement);
}

async function isInvalidTokenAnswer(response: Response): Promise<boolean> {
  if (response.status !== 401) return false;
  if (/invalid_token/.test(response.headers.get('WWW-Authenticate') ?? '')) return true;
  try {
    const body: unknown = await response.clone().json();
    return (body as { error?: unknown } | null)?.error === 'invalid_token';
  } catch {
    return false;
  }
}

function bearerTokenMiddleware(tokens: TokenProvider, security: OperationSecurity): Middleware {
  // Per sent request: an unsent copy of it and the token it carried. Weak, so calls that never reach
  // onResponse (network errors, a later middleware answering itself) leave nothing behind.
  const sent = new WeakMap<Request, { copy: Request; token: string }>();
  return {
    async onRequest({ request, schemaPath }) {
      if (!usesBearerToken(security, schemaPath, request.method)) return undefined;
      const token = await tokens.getToken();
      request.headers.set('Authorization', `Bearer ${token}`);
      sent.set(request, { copy: unsentCopy(request), token });
      return request;
    },
    async onResponse({ request, response, options }) {
      const call = sent.get(request);
      if (!call || !(await isInvalidTokenAnswer(response))) return undefined;
      // The token was revoked or expired early: drop it and try once more with a fresh one, through the
      // call's own fetch (its timeout and retries).
      tokens.invalidate(call.token);
      const token = await tokens.getToken();
      call.copy.headers.set('Authorization', `Bearer ${token}`);
      return options.fetch(call.copy);
    },
  };
}
