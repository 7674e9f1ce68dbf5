import type { Operation } from '@platform-api/validator';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import { ApiProblem, OAuthProblem } from '../errors.js';
import type { RateLimiter, RateLimitState } from '../rate-limit.js';
import { CALLBACK_TOKEN_HEADER, type CallbackGrant, verifyCallbackToken } from './callback-tokens.js';
import {
  type AuthContext,
  type AuthenticatedClient,
  authenticateClient,
  type TokenSettings,
  verifyAccessToken,
} from './tokens.js';

/*
 * Enforces the security requirement the spec declares for each operation, in two phases:
 * - `onRequest`, before anything else: the credentials' presence and form, then the rate limit (keyed by
 *   client when known); for oauth2 the whole bearer-token check (a JWT: verified without the database in
 *   the common case) and the scopes.
 * - `preHandler`, once the request has passed the spec's validation: the checks that read the database
 *   with what the request sent — the client secret (basicAuth, token endpoint) and the event callback token
 *   (chatBotToken, postCallbackMessage). No database query ever runs on unvalidated input.
 */

export const BEARER_REALM = 'Bearer realm="platform-api"';
export const BASIC_REALM = 'Basic realm="platform-api"';
export const CALLBACK_REALM = 'ChatBotToken realm="chat-callback"';

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
    apiClient?: AuthenticatedClient;
    callback?: CallbackGrant;
    /** HTTP Basic credentials as sent, checked against the database in the second phase. */
    basicCredentials?: { id: string; secret: string };
    /** The window this request was counted in: sent back as RateLimit-* headers (app.ts). */
    rateLimit?: RateLimitState;
  }
}

function parseBasic(header: string | undefined): { id: string; secret: string } | undefined {
  const encoded = header ? /^Basic +([A-Za-z0-9+/=._~-]+) *$/i.exec(header)?.[1] : undefined;
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  // RFC 6749 §2.3.1: id and secret are form-urlencoded before Base64; plain values decode to themselves.
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
}

/** The hooks an operation needs; one is absent when it would have nothing to do. */
export interface Guard {
  onRequest?(request: FastifyRequest): Promise<void>;
  preHandler?(request: FastifyRequest): Promise<void>;
}

const invalidClient = (credentialsSent: boolean) =>
  new OAuthProblem(
    401,
    'invalid_client',
    credentialsSent ? 'Bad client credentials' : 'Client authentication with HTTP Basic is required',
    { headers: { 'www-authenticate': BASIC_REALM } },
  );

const invalidCallback = (message: string) =>
  new ApiProblem(401, message, { headers: { 'www-authenticate': CALLBACK_REALM } });

const CALLBACK_NOT_VALID = `The ${CALLBACK_TOKEN_HEADER} is not valid for this channel`;

const INVALID_TOKEN = 'The access token is invalid, expired or revoked';

/** What the guard checks credentials against. */
export interface GuardDependencies {
  tokens: TokenSettings;
  db: Kysely<Database>;
  clock: Clock;
  limiter: RateLimiter;
}

/** The one way an operation is secured (each operation of the spec declares at most one requirement). */
type Security = { scheme: 'public' | 'basicAuth' | 'chatBotToken' } | { scheme: 'oauth2'; scopes: string[] };

function securityOf(operation: Operation): Security {
  const requirements = operation.security;
  if (requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0)) {
    return { scheme: 'public' };
  }
  if (requirements.some((r) => 'basicAuth' in r)) return { scheme: 'basicAuth' };
  if (requirements.some((r) => 'chatBotToken' in r)) return { scheme: 'chatBotToken' };
  const oauth = requirements.find((r) => 'oauth2' in r);
  if (oauth) return { scheme: 'oauth2', scopes: oauth.oauth2 ?? [] };
  // A security scheme this server does not know: refuse to start rather than let requests through.
  throw new Error(
    `${operation.operationId}: unsupported security requirement ${JSON.stringify(requirements)}`,
  );
}

/** Counts the request against `key` (its client once the token is verified, else its IP): 429 past the limit. */
function countRequest(limiter: RateLimiter, request: FastifyRequest, key: string): void {
  const decision = limiter.hit(key);
  request.rateLimit = decision.state;
  if (!decision.allowed) {
    throw new ApiProblem(429, `Rate limit reached; retry in ${decision.retryAfterSeconds} seconds.`, {
      headers: { 'retry-after': String(decision.retryAfterSeconds) },
    });
  }
}

/** The bearer token's whole check: form, signature and revocation, rate limit, then the scopes. */
async function checkBearer(request: FastifyRequest, deps: GuardDependencies, scopes: string[]) {
  const header = request.headers.authorization;
  const token = header ? /^Bearer +(\S+) *$/i.exec(header)?.[1] : undefined;
  if (token === undefined) {
    countRequest(deps.limiter, request, `ip:${request.ip}`);
    throw new ApiProblem(401, 'Full authentication is required to access this resource', {
      headers: { 'www-authenticate': BEARER_REALM },
    });
  }
  const auth = await verifyAccessToken(deps.tokens, token);
  if (!auth) {
    countRequest(deps.limiter, request, `ip:${request.ip}`);
    throw new OAuthProblem(401, 'invalid_token', INVALID_TOKEN, {
      headers: {
        'www-authenticate': `${BEARER_REALM}, error="invalid_token", error_description="${INVALID_TOKEN}"`,
      },
    });
  }
  countRequest(deps.limiter, request, `client:${auth.clientId}`);
  if (scopes.some((s) => !auth.scopes.includes(s))) {
    const scope = scopes.join(' ');
    throw new OAuthProblem(403, 'insufficient_scope', 'Insufficient scope for this resource', {
      scope,
      headers: { 'www-authenticate': `${BEARER_REALM}, error="insufficient_scope", scope="${scope}"` },
    });
  }
  request.auth = auth;
}

/** First phase for the credentials checked later against the database: present and well-formed. */
function checkCredentialsForm(request: FastifyRequest, scheme: 'basicAuth' | 'chatBotToken'): void {
  if (scheme === 'basicAuth') {
    const credentials = parseBasic(request.headers.authorization);
    if (!credentials) throw invalidClient(false);
    request.basicCredentials = credentials;
    return;
  }
  const token = request.headers[CALLBACK_TOKEN_HEADER];
  if (typeof token !== 'string') throw invalidCallback(`The ${CALLBACK_TOKEN_HEADER} header is required`);
  if (!/^[0-9a-f]{64}$/.test(token)) throw invalidCallback(CALLBACK_NOT_VALID);
}

/** Second phase, after validation: the client secret, or the callback token for the channel posted to. */
async function checkCredentials(
  request: FastifyRequest,
  deps: GuardDependencies,
  scheme: 'basicAuth' | 'chatBotToken',
): Promise<void> {
  if (scheme === 'basicAuth') {
    if (!request.basicCredentials) throw invalidClient(false);
    const { id, secret } = request.basicCredentials;
    const client = await authenticateClient(deps.db, id, secret);
    if (!client) throw invalidClient(true);
    request.apiClient = client;
    return;
  }
  const token = request.headers[CALLBACK_TOKEN_HEADER] as string;
  const { channelId } = request.params as { channelId: string };
  const grant = await verifyCallbackToken(deps.db, token, channelId, deps.clock.now());
  if (grant === 'unknown') throw invalidCallback(CALLBACK_NOT_VALID);
  if (grant === 'expired') {
    throw invalidCallback('The callback has expired (callbacks are valid for one hour after the event)');
  }
  request.callback = grant;
}

export function createGuard(operation: Operation, deps: GuardDependencies): Guard {
  const security = securityOf(operation);
  switch (security.scheme) {
    case 'public':
      // With the limiter off, a public operation has nothing to count or check.
      if (!deps.limiter.enabled) return {};
      return { onRequest: async (request) => countRequest(deps.limiter, request, `ip:${request.ip}`) };
    case 'oauth2':
      return { onRequest: (request) => checkBearer(request, deps, security.scopes) };
    default: {
      const { scheme } = security;
      return {
        onRequest: async (request) => {
          countRequest(deps.limiter, request, `ip:${request.ip}`);
          checkCredentialsForm(request, scheme);
        },
        preHandler: (request) => checkCredentials(request, deps, scheme),
      };
    }
  }
}
