import type { Schemas } from '../api-types.js';
import { issueAccessToken } from '../auth/tokens.js';
import { OAuthProblem } from '../errors.js';
import { declaredScopes } from '../spec.js';
import type { HandlerContext, HandlerMap } from './types.js';

/*
 * The token endpoint (client-credentials grant). Client authentication already happened in the guard
 * (HTTP Basic); here: the grant parameters, from the query or (POST) a form body, the body winning.
 */

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache', expires: '0' };

async function issue(ctx: HandlerContext, params: { grant_type?: unknown; scope?: unknown }) {
  const client = ctx.client;
  if (!client) throw new Error('token endpoint reached without an authenticated client');
  const { db, config, doc, tokens } = ctx.services;
  if (params.grant_type === undefined)
    throw new OAuthProblem(400, 'invalid_request', 'Missing grant_type parameter');
  if (params.grant_type !== 'client_credentials') {
    throw new OAuthProblem(
      400,
      'unsupported_grant_type',
      `Unsupported grant type: ${String(params.grant_type)}`,
    );
  }
  const granted = client.scopes;
  const requested = typeof params.scope === 'string' ? params.scope.split(' ').filter(Boolean) : [];
  const known = new Set(declaredScopes(doc));
  const refused = requested.filter((s) => !known.has(s) || !granted.includes(s));
  if (refused.length > 0) {
    throw new OAuthProblem(400, 'invalid_scope', `Invalid scope: ${refused.join(' ')}`, {
      scope: granted.join(' '),
    });
  }
  const scopes = requested.length > 0 ? [...new Set(requested)] : granted;
  const token = await issueAccessToken(tokens, client, scopes, config.tokenTtlSeconds);
  const user = await db.selectFrom('users').select('role').where('id', '=', client.userId).executeTakeFirst();
  return {
    headers: NO_STORE,
    body: {
      access_token: token.accessToken,
      token_type: 'bearer',
      expires_in: token.expiresIn,
      scope: scopes.join(' '),
      customer: client.instanceName,
      jti: token.jti,
      role: user?.role ?? 'Admin',
      userId: client.userId,
    },
  };
}

export const tokenHandlers = {
  async getJsonWebKeySet(ctx) {
    const published = await ctx.services.tokens.keys.published();
    return {
      headers: { 'cache-control': 'public, max-age=300' },
      body: { keys: published.map((key) => key.jwk as Schemas['JsonWebKey']) },
    };
  },
  getAccessToken: (ctx) => issue(ctx, ctx.query ?? {}),
  createAccessToken: (ctx) => {
    const form = ctx.body && typeof ctx.body === 'object' && !Buffer.isBuffer(ctx.body) ? ctx.body : {};
    return issue(ctx, { ...(ctx.query ?? {}), ...form });
  },
} satisfies Partial<HandlerMap>;
