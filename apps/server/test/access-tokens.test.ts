// Access tokens as the clients and resource servers we did not write see them: JWTs an SDK can read `exp`
// from, that verify offline against the published key set, survive a key rotation, and die with their
// client — at once, in this process and in another one sharing the database.
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  generateKeyPair,
  jwtVerify,
  SignJWT,
} from 'jose';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { deleteClient } from '../src/auth/clients.js';
import { SigningKeys } from '../src/auth/signing-keys.js';
import { TOKEN_AUDIENCE, verifyAccessToken } from '../src/auth/tokens.js';
import { createDatabase, type DatabaseHandle } from '../src/db/database.js';
import type { Database } from '../src/db/schema.js';
import { describeEachDialect } from './helpers/databases.js';
import { startTestServer, type TestServer } from './helpers/server.js';

describeEachDialect('access tokens on %s', (dialect) => {
  let server: TestServer;
  /** A second connection to the same database, as the CLI or another server instance has. */
  let other: DatabaseHandle;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    other = await createDatabase({
      dataDir: server.config.dataDir,
      databaseUrl: server.config.databaseUrl,
      databaseSchema: server.config.databaseSchema,
    });
  });
  afterAll(async () => {
    await other?.close();
    await server?.close();
  });

  const tokenResponse = async () => {
    const res = await server.call('GET', '/oauth/token?grant_type=client_credentials&scope=data%20user', {
      basic: { id: server.client.clientId, secret: server.client.clientSecret },
    });
    expect(res.status).toBe(200);
    return res.body as { access_token: string; jti: string; expires_in: number };
  };
  const jwks = async () => {
    const res = await server.call('GET', '/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    return res.body as { keys: Array<{ kid: string }> };
  };

  it('is a JWT whose claims an SDK can read: exp − iat = expires_in = 3599, jti as in the response', async () => {
    const body = await tokenResponse();
    expect(decodeProtectedHeader(body.access_token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const claims = decodeJwt(body.access_token);
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(3599);
    expect(body.expires_in).toBe(3599);
    expect(claims.iat).toBe(Math.floor(server.clock.now() / 1000));
    expect(claims).toMatchObject({
      jti: body.jti,
      iss: server.baseUrl,
      aud: TOKEN_AUDIENCE,
      sub: server.client.clientId,
      client_id: server.client.clientId,
      scope: 'data user',
      customer: 'acme',
      userId: server.client.userId,
    });
    const second = await tokenResponse();
    expect(decodeJwt(second.access_token).jti).not.toBe(claims.jti);
  });

  it('verifies offline against the published key set, as a resource server would', async () => {
    const { access_token } = await tokenResponse();
    const keySet = createLocalJWKSet((await jwks()) as never);
    const { payload } = await jwtVerify(access_token, keySet, {
      issuer: server.baseUrl,
      audience: TOKEN_AUDIENCE,
      currentDate: new Date(server.clock.now()),
    });
    expect(payload.sub).toBe(server.client.clientId);
  });

  it('refuses forged, tampered and unsigned tokens', async () => {
    const { access_token } = await tokenResponse();
    const [header, payload, signature] = access_token.split('.') as [string, string, string];
    const claims = decodeJwt(access_token);
    const widened = Buffer.from(JSON.stringify({ ...claims, scope: 'data user chat' })).toString('base64url');
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`;
    // Same claims and kid, but signed with a key that is not ours.
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(claims)
      .setProtectedHeader(decodeProtectedHeader(access_token) as never)
      .sign(privateKey);
    for (const token of [
      `${header}.${widened}.${signature}`,
      `${header}.${payload}.${flipped}`,
      unsigned,
      forged,
    ]) {
      const res = await server.call('GET', '/v1/users', { token });
      expect(res.status, token).toBe(401);
      expect(res.body.error).toBe('invalid_token');
    }
    expect((await server.call('GET', '/v1/users', { token: access_token })).status).toBe(200);
  });

  it('keeps tokens of a rotated key valid until they expire; new tokens use the new key', async () => {
    const before = (await tokenResponse()).access_token;
    const oldKid = decodeProtectedHeader(before).kid;
    // `platform-server keys rotate`, from another connection.
    const rotated = await new SigningKeys(other.db, server.clock, () => 3599_000).rotate();
    const after = (await tokenResponse()).access_token;
    expect(decodeProtectedHeader(after).kid).toBe(rotated.kid);
    expect(rotated.kid).not.toBe(oldKid);
    expect((await server.call('GET', '/v1/users', { token: before })).status).toBe(200);
    expect((await server.call('GET', '/v1/users', { token: after })).status).toBe(200);
    expect((await jwks()).keys.map((key) => key.kid)).toEqual([rotated.kid, oldKid]);
    // Once everything the old key signed has expired, it verifies nothing and leaves the set.
    server.clock.advance(3599_000 + 5 * 60_000 + 1000);
    expect((await jwks()).keys.map((key) => key.kid)).toEqual([rotated.kid]);
    const fresh = (await tokenResponse()).access_token;
    expect((await server.call('GET', '/v1/users', { token: fresh })).status).toBe(200);
  });

  it('revokes the tokens of a client deleted from another connection, at once', async () => {
    const doomed = await server.newClient('acme', ['user']);
    const token = await server.token(['user'], doomed);
    expect((await server.call('GET', '/v1/users', { token })).status).toBe(200);
    expect(await deleteClient(other, doomed.clientId)).toBe(true);
    // SQLite sees the commit on the next request; PostgreSQL when the NOTIFY of the commit arrives (ms).
    await vi.waitFor(
      async () => {
        const res = await server.call('GET', '/v1/users', { token });
        expect(res.status).toBe(401);
        expect(res.body.error).toBe('invalid_token');
      },
      { timeout: 60_000, interval: 5 },
    );
    expect(await deleteClient(other, doomed.clientId)).toBe(false);
  });

  it('verifies a known token without a database round trip', async () => {
    const { access_token } = await tokenResponse();
    let queries = 0;
    const counted: Kysely<Database> = server.platform.services.db.withPlugin({
      transformQuery: (args) => {
        queries++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const keys = new SigningKeys(counted, server.clock, () => 3599_000);
    const settings = { ...server.platform.services.tokens, keys };
    const first = await verifyAccessToken(settings, access_token);
    expect(first?.clientId).toBe(server.client.clientId);
    const afterFirst = queries;
    for (let i = 0; i < 5; i++) expect(await verifyAccessToken(settings, access_token)).toEqual(first);
    expect(queries - afterFirst).toBe(0);
    // Its signature was checked once: later uses re-check only expiry, key and client.
    expect(settings.verified?.get(access_token)).toMatchObject({ sub: server.client.clientId });
    server.clock.advance(3599_000);
    expect(await verifyAccessToken(settings, access_token)).toBeUndefined();
    // A token naming a kid that is not ours is refused without asking the database either.
    const forgedKid = `${access_token.split('.')[0]}x.${access_token.split('.').slice(1).join('.')}`;
    expect(await verifyAccessToken(settings, forgedKid)).toBeUndefined();
    expect(queries - afterFirst).toBe(0);
  });
});
