import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { DUMMY_SECRET_HASH, randomToken, sha256Hex, verifySecret } from './secrets.js';

/*
 * Access tokens are OPAQUE random strings (256 bits), stored only as a SHA-256 hash with their client,
 * instance, user, scopes and expiry. Why not JWTs: revocation (deleting a client) is a single DELETE and
 * takes effect at once, no signing key has to be managed or rotated, and no claim leaks to whoever holds a
 * token. The cost: one indexed lookup per request, and SDKs that read `exp` from a JWT fall back to the
 * response's `expires_in` (they then renew on their own schedule or per call — both still work).
 */

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

/** Checks HTTP Basic client credentials. Same work whether or not the client id exists. */
export async function authenticateClient(
  db: Kysely<Database>,
  clientId: string,
  clientSecret: string,
): Promise<AuthenticatedClient | undefined> {
  const client = await db
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
    .executeTakeFirst();
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

export async function issueAccessToken(
  db: Kysely<Database>,
  clock: Clock,
  client: AuthenticatedClient,
  scopes: string[],
  ttlSeconds: number,
): Promise<IssuedToken> {
  const accessToken = randomToken(32);
  const jti = randomUUID();
  const now = clock.now();
  await db
    .insertInto('access_tokens')
    .values({
      token_hash: sha256Hex(accessToken),
      jti,
      client_id: client.id,
      instance_id: client.instanceId,
      user_id: client.userId,
      scopes: scopes.join(' '),
      expires_at: now + ttlSeconds * 1000,
      created_at: now,
    })
    .execute();
  // Expired tokens are useless: prune them now and then, on the write path, instead of a timer.
  if (Math.random() < 0.01) await db.deleteFrom('access_tokens').where('expires_at', '<', now).execute();
  return { accessToken, jti, expiresIn: ttlSeconds, scopes };
}

/** Resolves a bearer token; undefined when unknown, expired or revoked (its client deleted). */
export async function verifyAccessToken(
  db: Kysely<Database>,
  clock: Clock,
  token: string,
): Promise<AuthContext | undefined> {
  if (token.length === 0 || token.length > 512) return undefined;
  const row = await db
    .selectFrom('access_tokens')
    .innerJoin('clients', 'clients.id', 'access_tokens.client_id')
    .innerJoin('instances', 'instances.id', 'access_tokens.instance_id')
    .select([
      'access_tokens.client_id',
      'access_tokens.instance_id',
      'instances.name as instance_name',
      'access_tokens.user_id',
      'access_tokens.scopes',
      'access_tokens.expires_at',
    ])
    .where('access_tokens.token_hash', '=', sha256Hex(token))
    .executeTakeFirst();
  if (!row || row.expires_at <= clock.now()) return undefined;
  return {
    clientId: row.client_id,
    instanceId: row.instance_id,
    instanceName: row.instance_name,
    userId: row.user_id,
    scopes: row.scopes.split(' ').filter(Boolean),
  };
}
