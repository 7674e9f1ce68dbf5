import { randomBytes } from 'node:crypto';
import { exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';

/*
 * The keys that sign access tokens. They live in the database, so every server instance sharing it signs
 * and verifies with the same set: the newest unretired key signs; a retired key keeps verifying the tokens
 * it signed until they have expired, then leaves the published set (JWKS). `platform-server keys rotate`
 * retires the current key and creates the next one. Private keys are stored as PKCS #8 PEM: protect the
 * database (and its backups) as you would any secret store.
 */

export const SIGNING_ALGORITHM = 'ES256';

/** Our key ids: 16 random bytes, base64url. Anything else is refused before it reaches the database. */
const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** A retired key verifies for the token lifetime plus this margin (a token signed just as it was retired). */
const RETIREMENT_GRACE_MS = 5 * 60_000;

/** How often a process re-reads whether a key it verifies with has been retired elsewhere. */
const ACTIVE_KEY_RECHECK_MS = 60_000;

type VerifyKey = Awaited<ReturnType<typeof importJWK>>;
type SignKey = Awaited<ReturnType<typeof importPKCS8>>;

export interface SigningKey {
  kid: string;
  privateKey: SignKey;
}

export interface PublishedKey {
  kid: string;
  createdAt: number;
  retiredAt: number | null;
  jwk: JWK;
}

export class SigningKeys {
  /** Imported keys by kid; a row never changes but for `retired_at`, which is re-read where it matters. */
  private readonly signing = new Map<string, Promise<SigningKey>>();
  private readonly verifying = new Map<
    string,
    { key: VerifyKey; retiredAt: number | null; checkedAt: number }
  >();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly tokenTtlMs: () => number,
  ) {}

  /** The key that signs now: the newest unretired one, created on first use. One indexed query. */
  async current(): Promise<SigningKey> {
    const row = await this.db
      .selectFrom('signing_keys')
      .select(['id', 'private_key'])
      .where('retired_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    if (!row) return this.create();
    let key = this.signing.get(row.id);
    if (!key) {
      key = importPKCS8(row.private_key, SIGNING_ALGORITHM).then((privateKey) => ({
        kid: row.id,
        privateKey,
      }));
      this.signing.set(row.id, key);
    }
    return key;
  }

  /**
   * The public key for a token's `kid`, or undefined when it is unknown or retired too long ago. Cached: the
   * database is asked for a kid this process has not seen (a key another instance created), and once a
   * minute whether an active key has been retired (by `keys rotate` in another process).
   */
  async verificationKey(kid: unknown): Promise<VerifyKey | undefined> {
    if (typeof kid !== 'string' || !KEY_ID_PATTERN.test(kid)) return undefined;
    const now = this.clock.now();
    let entry = this.verifying.get(kid);
    if (!entry || (entry.retiredAt === null && now - entry.checkedAt > ACTIVE_KEY_RECHECK_MS)) {
      const row = await this.db
        .selectFrom('signing_keys')
        .select(['public_jwk', 'retired_at'])
        .where('id', '=', kid)
        .executeTakeFirst();
      if (!row) {
        this.verifying.delete(kid);
        return undefined;
      }
      entry = {
        key: entry?.key ?? (await importJWK(JSON.parse(row.public_jwk) as JWK, SIGNING_ALGORITHM)),
        retiredAt: row.retired_at,
        checkedAt: now,
      };
      this.verifying.set(kid, entry);
    }
    if (entry.retiredAt !== null && !this.stillVerifies(entry.retiredAt)) return undefined;
    return entry.key;
  }

  /** Every key that may still verify a live token, the signing one first: the JWKS. */
  async published(): Promise<PublishedKey[]> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .select(['id', 'public_jwk', 'created_at', 'retired_at'])
      .execute();
    // The signing key first, then the others by how recently they were retired.
    const order = (retiredAt: number | null) => retiredAt ?? Number.POSITIVE_INFINITY;
    return rows
      .filter((row) => row.retired_at === null || this.stillVerifies(row.retired_at))
      .sort((a, b) => order(b.retired_at) - order(a.retired_at) || b.created_at - a.created_at)
      .map((row) => ({
        kid: row.id,
        createdAt: row.created_at,
        retiredAt: row.retired_at,
        jwk: JSON.parse(row.public_jwk) as JWK,
      }));
  }

  /**
   * Retires every active key and creates the next one, in one transaction. Tokens already issued stay
   * valid until they expire; keys retired long enough ago to verify nothing are deleted.
   */
  async rotate(): Promise<PublishedKey> {
    const now = this.clock.now();
    const next = await newKeyRow(now);
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('signing_keys')
        .set({ retired_at: now })
        .where('retired_at', 'is', null)
        .execute();
      await trx.insertInto('signing_keys').values(next).execute();
      await trx
        .deleteFrom('signing_keys')
        .where('retired_at', '<', now - this.tokenTtlMs() - RETIREMENT_GRACE_MS)
        .execute();
    });
    for (const entry of this.verifying.values()) if (entry.retiredAt === null) entry.retiredAt = now;
    return { kid: next.id, createdAt: now, retiredAt: null, jwk: JSON.parse(next.public_jwk) as JWK };
  }

  private stillVerifies(retiredAt: number): boolean {
    return this.clock.now() < retiredAt + this.tokenTtlMs() + RETIREMENT_GRACE_MS;
  }

  /**
   * First key of an empty table. Several instances starting at once may each create one: all of them verify,
   * and the newest signs.
   */
  private async create(): Promise<SigningKey> {
    const row = await newKeyRow(this.clock.now());
    await this.db.insertInto('signing_keys').values(row).execute();
    return this.current();
  }
}

async function newKeyRow(now: number) {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const id = randomBytes(16).toString('base64url');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: id, alg: SIGNING_ALGORITHM, use: 'sig' };
  return {
    id,
    algorithm: SIGNING_ALGORITHM,
    private_key: await exportPKCS8(privateKey),
    public_jwk: JSON.stringify(jwk),
    created_at: now,
    retired_at: null,
  };
}
