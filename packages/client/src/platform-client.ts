import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './generated/platform.js';
import { operationSecurity, securitySchemes } from './generated/platform.security.js';
import { joinUrl } from './http.js';
import { createTokenProvider, type TokenProvider } from './token-provider.js';

/** A scope the platform API defines (components.securitySchemes.oauth2). */
export type PlatformScope = keyof typeof securitySchemes.oauth2.flows.clientCredentials.scopes;

export interface PlatformClientOptions {
  /** The API's address, e.g. `https://api.example.com` (no trailing `/v1`: the paths carry it). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Scopes to request for the token (`user`, `data`, `chat`); none = every scope granted to the client. */
  scopes?: readonly PlatformScope[];
  /** The fetch used for every request, the token request included (timeouts, proxies, retries, tests). */
  fetch?: (input: Request) => Promise<Response>;
  /** Refresh a token this many seconds before it expires (default 60, at most half its lifetime). */
  tokenRefreshMarginSeconds?: number;
}

export type PlatformClient = Client<paths>;

const tokenUrl = securitySchemes.oauth2.flows.clientCredentials.tokenUrl;

/**
 * A typed client of the platform API that authenticates with the OAuth 2.0 client-credentials grant:
 * it gets a token before the first call that needs one, reuses it until shortly before it expires, shares
 * one token request among concurrent calls, and retries a call once with a fresh token when the server
 * answers 401 `invalid_token`. Token failures reject the call with a `PlatformAuthError`.
 */
export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  for (const name of ['baseUrl', 'clientId', 'clientSecret'] as const) {
    if (typeof options[name] !== 'string' || options[name] === '') {
      throw new TypeError(`createPlatformClient: ${name} must be a non-empty string`);
    }
  }
  const margin = options.tokenRefreshMarginSeconds ?? 60;
  if (!Number.isFinite(margin) || margin < 0) {
    throw new TypeError('createPlatformClient: tokenRefreshMarginSeconds must be a number >= 0');
  }
  const fetchImpl = options.fetch ?? ((input: Request) => globalThis.fetch(input));
  const tokens = createTokenProvider({
    tokenUrl: joinUrl(options.baseUrl, tokenUrl),
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scopes: options.scopes ?? [],
    fetch: fetchImpl,
    refreshMarginSeconds: margin,
  });
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: fetchImpl });
  client.use(bearerTokenMiddleware(tokens, fetchImpl));
  return client;
}

/** Whether the spec lets this operation authenticate with an `oauth2` bearer token. */
function usesBearerToken(schemaPath: string, method: string): boolean {
  const byMethod = (operationSecurity as Record<string, Record<string, readonly object[]> | undefined>)[
    schemaPath
  ];
  const requirements = byMethod?.[method.toLowerCase()];
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

function bearerTokenMiddleware(
  tokens: TokenProvider,
  fetchImpl: (input: Request) => Promise<Response>,
): Middleware {
  // Per sent request: an unsent copy of it and the token it carried. Weak, so calls that never reach
  // onResponse (network errors, a later middleware answering itself) leave nothing behind.
  const sent = new WeakMap<Request, { copy: Request; token: string }>();
  return {
    async onRequest({ request, schemaPath }) {
      if (!usesBearerToken(schemaPath, request.method)) return undefined;
      const token = await tokens.getToken();
      request.headers.set('Authorization', `Bearer ${token}`);
      sent.set(request, { copy: request.clone(), token });
      return request;
    },
    async onResponse({ request, response }) {
      const call = sent.get(request);
      if (!call || !(await isInvalidTokenAnswer(response))) return undefined;
      // The token was revoked or expired early: drop it and try once more with a fresh one.
      tokens.invalidate(call.token);
      const token = await tokens.getToken();
      call.copy.headers.set('Authorization', `Bearer ${token}`);
      return fetchImpl(call.copy);
    },
  };
}
