import type { FastifyRequest } from 'fastify';
import { ApiProblem, OAuthProblem } from '../errors.js';
import type { Services } from '../handlers/types.js';
import type { RateLimiter } from '../rate-limit.js';
import type { SpecOperation } from '../spec.js';
import { sha256Hex } from './secrets.js';
import {
  type AuthContext,
  type AuthenticatedClient,
  authenticateClient,
  verifyAccessToken,
} from './tokens.js';

/*
 * Enforces the security requirement the spec declares for each operation, before anything else runs:
 * oauth2 (bearer token + scopes), basicAuth (client credentials at the token endpoint) and chatBotToken
 * (the callback token of postCallbackMessage). Then the rate limit, keyed by client when known.
 */

export const BEARER_REALM = 'Bearer realm="platform-api"';
export const BASIC_REALM = 'Basic realm="platform-api"';
export const CALLBACK_REALM = 'ChatBotToken realm="chat-callback"';
const CALLBACK_HEADER = 'x-chat-bot-token';

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
    apiClient?: AuthenticatedClient;
    callback?: { instanceId: number; integrationId: string; channelId: string };
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

export function createGuard(operation: SpecOperation, services: Services, limiter: RateLimiter) {
  const requirements = operation.security;
  const isPublic = requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0);
  const oauth = requirements.find((r) => 'oauth2' in r);
  const basic = requirements.some((r) => 'basicAuth' in r);
  const botToken = requirements.some((r) => 'chatBotToken' in r);
  const requiredScopes = oauth?.oauth2 ?? [];

  const rateLimit = (request: FastifyRequest, key: string) => {
    const decision = limiter.hit(key);
    if (!decision.allowed) {
      throw new ApiProblem(429, `Rate limit reached; retry in ${decision.retryAfterSeconds} seconds.`, {
        headers: { 'retry-after': String(decision.retryAfterSeconds) },
      });
    }
    void request;
  };

  return async function guard(request: FastifyRequest): Promise<void> {
    if (isPublic) return;

    if (basic) {
      rateLimit(request, `ip:${request.ip}`);
      const credentials = parseBasic(request.headers.authorization);
      const client = credentials
        ? await authenticateClient(services.db, credentials.id, credentials.secret)
        : undefined;
      if (!client) {
        throw new OAuthProblem(
          401,
          'invalid_client',
          credentials ? 'Bad client credentials' : 'Client authentication with HTTP Basic is required',
          { headers: { 'www-authenticate': BASIC_REALM } },
        );
      }
      request.apiClient = client;
      return;
    }

    if (botToken) {
      rateLimit(request, `ip:${request.ip}`);
      const token = request.headers[CALLBACK_HEADER];
      const channelId = (request.params as Record<string, string> | undefined)?.channelId;
      const row =
        typeof token === 'string' && /^[0-9a-f]{64}$/.test(token) && channelId
          ? await services.db
              .selectFrom('callback_tokens')
              .select(['instance_id', 'integration_id', 'channel_id', 'expires_at'])
              .where('token_hash', '=', sha256Hex(token))
              .where('channel_id', '=', channelId)
              .executeTakeFirst()
          : undefined;
      if (!row || row.expires_at <= services.clock.now()) {
        throw new ApiProblem(
          401,
          typeof token !== 'string'
            ? `The ${CALLBACK_HEADER} header is required`
            : row
              ? 'The callback has expired (callbacks are valid for one hour after the event)'
              : `The ${CALLBACK_HEADER} is not valid for this channel`,
          { headers: { 'www-authenticate': CALLBACK_REALM } },
        );
      }
      request.callback = {
        instanceId: row.instance_id,
        integrationId: row.integration_id,
        channelId: row.channel_id,
      };
      return;
    }

    if (oauth) {
      const header = request.headers.authorization;
      const match = header ? /^Bearer +(\S+) *$/i.exec(header) : null;
      if (!match) {
        rateLimit(request, `ip:${request.ip}`);
        throw new ApiProblem(401, 'Full authentication is required to access this resource', {
          headers: { 'www-authenticate': BEARER_REALM },
        });
      }
      const auth = await verifyAccessToken(services.db, services.clock, match[1]!);
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
      return;
    }

    // A security scheme this server does not know: refuse rather than let the request through.
    throw new Error(
      `${operation.operationId}: unsupported security requirement ${JSON.stringify(requirements)}`,
    );
  };
}
