import type { Operation } from '@platform-api/validator';
import type { FastifyRequest } from 'fastify';
import { CALLBACK_TOKEN_HEADER } from '../delivery/callback-tokens.js';
import { ApiProblem, OAuthProblem } from '../errors.js';
import type { Services } from '../handlers/types.js';
import type { RateLimiter, RateLimitState } from '../rate-limit.js';
import { sha256Hex } from './secrets.js';
import {
  type AuthContext,
  type AuthenticatedClient,
  authenticateClient,
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
    callback?: { instanceId: number; integrationId: string; channelId: string };
    /** HTTP Basic credentials as sent, checked against the database in the second phase. */
    basicCredentials?: { id: string; secret: string };
    /** The window this request was counted in: sent back as RateLimit-* headers (app.ts). */
    rateLimit?: RateLimitState;
  }
}

function parseBasic(header: string | undefined): { id: string; secret: string } | undefined {
  const match = header ? /^Basic +([A-Za-z0-9+/=._~-]+) *$/i.exec(header) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
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

export function createGuard(operation: Operation, services: Services, limiter: RateLimiter): Guard {
  const requirements = operation.security;
  const isPublic = requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0);
  const oauth = requirements.find((r) => 'oauth2' in r);
  const basic = requirements.some((r) => 'basicAuth' in r);
  const botToken = requirements.some((r) => 'chatBotToken' in r);
  const requiredScopes = oauth?.oauth2 ?? [];
  if (!isPublic && !oauth && !basic && !botToken) {
    // A security scheme this server does not know: refuse to start rather than let requests through.
    throw new Error(
      `${operation.operationId}: unsupported security requirement ${JSON.stringify(requirements)}`,
    );
  }

  // Every request counts once, against its client once the token is verified, else against its IP.
  const rateLimit = (request: FastifyRequest, key: string) => {
    const decision = limiter.hit(key);
    request.rateLimit = decision.state;
    if (!decision.allowed) {
      throw new ApiProblem(429, `Rate limit reached; retry in ${decision.retryAfterSeconds} seconds.`, {
        headers: { 'retry-after': String(decision.retryAfterSeconds) },
      });
    }
  };

  async function onRequest(request: FastifyRequest): Promise<void> {
    if (isPublic) {
      rateLimit(request, `ip:${request.ip}`);
      return;
    }

    if (basic) {
      rateLimit(request, `ip:${request.ip}`);
      const credentials = parseBasic(request.headers.authorization);
      if (!credentials) throw invalidClient(false);
      request.basicCredentials = credentials;
      return;
    }

    if (botToken) {
      rateLimit(request, `ip:${request.ip}`);
      const token = request.headers[CALLBACK_TOKEN_HEADER];
      if (typeof token !== 'string') throw invalidCallback(`The ${CALLBACK_TOKEN_HEADER} header is required`);
      if (!/^[0-9a-f]{64}$/.test(token))
        throw invalidCallback(`The ${CALLBACK_TOKEN_HEADER} is not valid for this channel`);
      return;
    }

    const header = request.headers.authorization;
    const match = header ? /^Bearer +(\S+) *$/i.exec(header) : null;
    if (!match) {
      rateLimit(request, `ip:${request.ip}`);
      throw new ApiProblem(401, 'Full authentication is required to access this resource', {
        headers: { 'www-authenticate': BEARER_REALM },
      });
    }
    const auth = await verifyAccessToken(services.tokens, match[1]!);
    if (!auth) {
      rateLimit(request, `ip:${request.ip}`);
      throw new OAuthProblem(401, 'invalid_token', 'The access token is invalid, expired or revoked', {
        headers: {
          'www-authenticate': `${BEARER_REALM}, error="invalid_token", error_description="The access token is invalid, expired or revoked"`,
        },
      });
    }
    rateLimit(request, `client:${auth.clientId}`);
    const missing = requiredScopes.filter((s) => !auth.scopes.includes(s));
    if (missing.length > 0) {
      const scope = requiredScopes.join(' ');
      throw new OAuthProblem(403, 'insufficient_scope', 'Insufficient scope for this resource', {
        scope,
        headers: { 'www-authenticate': `${BEARER_REALM}, error="insufficient_scope", scope="${scope}"` },
      });
    }
    request.auth = auth;
  }

  async function preHandler(request: FastifyRequest): Promise<void> {
    if (basic && request.basicCredentials) {
      const { id, secret } = request.basicCredentials;
      const client = await authenticateClient(services.db, id, secret);
      if (!client) throw invalidClient(true);
      request.apiClient = client;
      return;
    }
    if (botToken) {
      const token = request.headers[CALLBACK_TOKEN_HEADER] as string;
      const { channelId } = request.params as { channelId: string };
      const row = await services.db
        .selectFrom('callback_tokens')
        .select(['instance_id', 'integration_id', 'channel_id', 'expires_at'])
        .where('token_hash', '=', sha256Hex(token))
        .where('channel_id', '=', channelId)
        .executeTakeFirst();
      if (!row) throw invalidCallback(`The ${CALLBACK_TOKEN_HEADER} is not valid for this channel`);
      if (row.expires_at <= services.clock.now()) {
        throw invalidCallback('The callback has expired (callbacks are valid for one hour after the event)');
      }
      request.callback = {
        instanceId: row.instance_id,
        integrationId: row.integration_id,
        channelId: row.channel_id,
      };
    }
  }

  return {
    // A public operation with the limiter off has nothing to count or check.
    ...(isPublic && !limiter.enabled ? {} : { onRequest }),
    ...(basic || botToken ? { preHandler } : {}),
  };
}
