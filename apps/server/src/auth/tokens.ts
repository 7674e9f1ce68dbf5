import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { LiveClients } from './live-clients.js';
import { DUMMY_SECRET_HASH, verifySecret } from './secrets.js';
import { SIGNING_ALGORITHM, type SigningKeys } from './signing-keys.js';

/*
 * Access tokens are signed JWTs (RFC 9068 profile: `typ: at+jwt`), as the real service issues them: SDKs
 * read `exp` to know when to renew, and resource servers can verify them offline with the keys published at
 * /.well-known/jwks.json. Nothing is stored per token. A token is accepted when its signature, issuer,
 * audience and expiry hold and its client still exists — so deleting a client revokes its tokens at once
 * (see live-clients.ts for how that stays cheap and correct across instances).
 */

/** The `aud` of every access token: this API. */
export const TOKEN_AUDIENCE = 'platform-api';

/** Longer than any token we issue (~700 characters); a longer one is refused without parsing. */
const MAX_TOKEN_LENGTH = 4096;

export interface AuthContext {
  clientId: string;
  instanceId: number;
  instanceName: string;
  userId: number;
  scopes: string[];
}

export interface AuthenticatedClient {
  id: string;
  instanceId: number;
  instanceName: string;
  userId: number;
  scopes: string[];
}

/** Our client ids are UUIDs: anything else is refused before it reaches the database. */
const CLIENT_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Checks HTTP Basic client credentials. Same work whether or not the client id exists. */
export async function authenticateClient(
  db: Kysely<Database>,
  clientId: string,
  clientSecret: string,
): Promise<AuthenticatedClient | undefined> {
  const client = CLIENT_ID_PATTERN.test(clientId)
    ? await db
        .selectFrom('clients')
        .innerJoin('instances', 'instances.id', 'clients.instance_id')
        .select([
          'clients.id',
          'clients.instance_id',
          'instances.name as instance_name',
          'clients.user_id',
          'clients.scopes',
          'clients.secret_hash',
        ])
        .where('clients.id', '=', clientId)
        .executeTakeFirst()
    : undefined;
  const ok = await verifySecret(clientSecret, client?.secret_hash ?? DUMMY_SECRET_HASH);
  if (!client || !ok) return undefined;
  return {
    id: client.id,
    instanceId: client.instance_id,
    instanceName: client.instance_name,
    userId: client.user_id,
    scopes: client.scopes.split(' ').filter(Boolean),
  };
}

export interface IssuedToken {
  accessToken: string;
  jti: string;
  expiresIn: number;
  scopes: string[];
}

export interface TokenSettings {
  clock: Clock;
  keys: SigningKeys;
  clients: LiveClients;
  /** The `iss` of the tokens: the server's public base URL. */
  issuer: () => string;
  /** Tokens whose signature and claims were verified (see VerifiedTokens); none cached when absent. */
  verified?: VerifiedTokens;
}

/** What a verified token says that the per-request checks need. */
interface VerifiedClaims {
  kid: string;
  sub: string;
  scope: string;
  /** Seconds since the epoch, as in the JWT. */
  exp: number;
  nbf?: number;
}

/** Past it, the cache starts afresh: a miss costs one signature check, not a database query. */
const MAX_VERIFIED_TOKENS = 10_000;

/**
 * Tokens whose signature, issuer, audience and type held once, so that each later request with the same
 * token costs a map lookup instead of an ECDSA verification. What can change is checked on every use:
 * expiry (and not-before) against the clock, the signing key still verifying (retired past its grace:
 * refused), and the client still existing (revocation).
 */
export class VerifiedTokens {
  private readonly tokens = new Map<string, VerifiedClaims>();

  get(token: string): VerifiedClaims | undefined {
    return this.tokens.get(token);
  }

  set(token: string, claims: VerifiedClaims): void {
    if (this.tokens.size >= MAX_VERIFIED_TOKENS) this.tokens.clear();
    this.tokens.set(token, claims);
  }
}

export async function issueAccessToken(
  settings: TokenSettings,
  client: AuthenticatedClient,
  scopes: string[],
  ttlSeconds: number,
): Promise<IssuedToken> {
  const key = await settings.keys.current();
  const jti = randomUUID();
  const issuedAt = Math.floor(settings.clock.now() / 1000);
  const accessToken = await new SignJWT({
    client_id: client.id,
    scope: scopes.join(' '),
    customer: client.instanceName,
    userId: client.userId,
  })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: 'at+jwt', kid: key.kid })
    .setIssuer(settings.issuer())
    .setSubject(client.id)
    .setAudience(TOKEN_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .setJti(jti)
    .sign(key.privateKey);
  return { accessToken, jti, expiresIn: ttlSeconds, scopes };
}

/** Resolves a bearer token; undefined when malformed, badly signed, expired or revoked (client deleted). */
export async function verifyAccessToken(
  settings: TokenSettings,
  token: string,
): Promise<AuthContext | undefined> {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return undefined;
  let claims = settings.verified?.get(token);
  if (claims) {
    const now = settings.clock.now() / 1000;
    // jose's own rules: expired at `exp` (no tolerance), not valid before `nbf`.
    if (now >= claims.exp || (claims.nbf !== undefined && now < claims.nbf)) return undefined;
    if (!(await settings.keys.verificationKey(claims.kid))) return undefined;
  } else {
    claims = await verifySignedToken(settings, token);
    if (!claims) return undefined;
    settings.verified?.set(token, claims);
  }
  const client = await settings.clients.find(claims.sub);
  if (!client) return undefined;
  return {
    clientId: claims.sub,
    instanceId: client.instanceId,
    instanceName: client.instanceName,
    userId: client.userId,
    scopes: claims.scope.split(' ').filter(Boolean),
  };
}

/** The full check of a token: signature, type, issuer, audience, times and the claims we need. */
async function verifySignedToken(
  settings: TokenSettings,
  token: string,
): Promise<VerifiedClaims | undefined> {
  try {
    const { payload, protectedHeader } = await jwtVerify(
      token,
      async (header) => {
        const key = await settings.keys.verificationKey(header.kid);
        if (!key) throw new joseErrors.JWKSNoMatchingKey();
        return key;
      },
      {
        algorithms: [SIGNING_ALGORITHM],
        typ: 'at+jwt',
        issuer: settings.issuer(),
        audience: TOKEN_AUDIENCE,
        currentDate: new Date(settings.clock.now()),
        requiredClaims: ['exp', 'iat', 'jti', 'sub', 'scope'],
      },
    );
    const { sub, scope, exp, nbf } = payload;
    if (typeof sub !== 'string' || typeof scope !== 'string' || typeof exp !== 'number') return undefined;
    if (typeof protectedHeader.kid !== 'string') return undefined;
    return { kid: protectedHeader.kid, sub, scope, exp, nbf: typeof nbf === 'number' ? nbf : undefined };
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) return undefined;
    throw error;
  }
}
