import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/*
 * Secret handling: client secrets are stored as scrypt hashes and compared in constant time; bearer and
 * callback tokens are high-entropy random values stored only as SHA-256 hashes (a fast hash is enough for
 * 256-bit random values, and lets a token be found by its hash).
 */

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 };

function scryptAsync(
  secret: string,
  salt: Buffer,
  N: number,
  r: number,
  p: number,
  keyLength: number,
): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    scrypt(secret, salt, keyLength, { N, r, p, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolvePromise(key),
    );
  });
}

/** Returns `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(secret, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keyLength);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(
    secret,
    Buffer.from(salt, 'base64url'),
    Number(n),
    Number(r),
    Number(p),
    expected.length,
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A scrypt hash of nothing in particular, verified against when a client id is unknown so timing does not tell. */
export const DUMMY_SECRET_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(32).toString('base64url')}`;

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function randomToken(bytes = 32, encoding: 'hex' | 'base64url' = 'base64url'): string {
  return randomBytes(bytes).toString(encoding);
}
