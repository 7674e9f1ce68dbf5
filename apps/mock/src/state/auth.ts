// Whose state a request reads and writes: the owner of its credentials, read from the bundle's security
// schemes.
// - OAuth 2.0 client credentials (the platform): the token operation (the flow's `tokenUrl`) takes any
//   client id with HTTP Basic; the first secret a client id uses is its secret from then on (a wrong one is
//   401 `invalid_client`). The token is a JWT the mock signs (HS256, a key made at start: a restart ends
//   every token), carrying the client id, the scopes granted (those asked for, all of the flow's by
//   default) and `exp`. A bearer token the mock did not issue, or one expired, is 401; one without the
//   operation's scope is 403. The client id is the tenant.
// - HTTP Basic on the operations themselves (the site's application passwords): the user name is the
//   tenant, its first password its password; a request without credentials is the anonymous visitor.
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { isObject, type Operation, type SpecValidator } from '@platform-api/validator';

/** Clients (or users) whose secret the mock remembers at most. */
const MAX_CLIENTS = 100_000;

/** The token's lifetime, as the service issues it (`expires_in`). */
const TOKEN_SECONDS = 3599;

export interface TokenClaims {
  client: string;
  scopes: Set<string>;
  expires: number;
}

/** What the credentials of a request come to. */
export type Credential =
  | { kind: 'none' }
  | { kind: 'tenant'; tenant: string; scopes?: Set<string> }
  /** Present but refused: unknown or expired token, wrong password. */
  | { kind: 'refused'; scheme: 'bearer' | 'basic' };

export interface IssuedToken {
  accessToken: string;
  scope: string;
  jti: string;
  expiresIn: number;
}

export class Credentials {
  private readonly key = randomBytes(32);
  private readonly secrets = new Map<string, Buffer>();
  /** Tokens already checked (a token is verified once, then looked up). */
  private readonly verified = new Map<string, TokenClaims>();
  /** The flow's token operation path and its scopes, when the API has an OAuth 2.0 client-credentials flow. */
  readonly tokenPath: string | undefined;
  readonly scopes: string[];
  private readonly bearerSchemes = new Set<string>();
  private readonly basicSchemes = new Set<string>();
  /** API key schemes in a header: scheme name → header name (lower case). */
  private readonly headerKeys = new Map<string, string>();

  constructor(validator: SpecValidator) {
    const schemes = validator.document.components?.securitySchemes;
    let tokenPath: string | undefined;
    let scopes: string[] = [];
    for (const [name, scheme] of Object.entries(isObject(schemes) ? schemes : {})) {
      if (!isObject(scheme)) continue;
      const flow = isObject(scheme.flows) ? scheme.flows.clientCredentials : undefined;
      if (scheme.type === 'oauth2' && isObject(flow)) {
        this.bearerSchemes.add(name);
        tokenPath = new URL(String(flow.tokenUrl), 'http://mock').pathname;
        scopes = Object.keys(isObject(flow.scopes) ? flow.scopes : {});
      } else if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer') {
        this.bearerSchemes.add(name);
      } else if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'basic') {
        this.basicSchemes.add(name);
      } else if (scheme.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string') {
        this.headerKeys.set(name, scheme.name.toLowerCase());
      }
    }
    this.tokenPath = tokenPath;
    this.scopes = scopes;
  }

  isTokenOperation(operation: Operation): boolean {
    return this.tokenPath !== undefined && operation.path === this.tokenPath;
  }

  /** The scopes an operation needs, per alternative (empty when it needs none of the bearer schemes). */
  requiredScopes(operation: Operation): string[][] {
    return operation.security
      .map((requirement) =>
        Object.entries(requirement)
          .filter(([name]) => this.bearerSchemes.has(name))
          .flatMap(([, scopes]) => scopes),
      )
      .filter((scopes) => scopes.length > 0);
  }

  /** The header of the API key an operation takes, when that is all it takes (a callback token). */
  keyHeader(operation: Operation): string | undefined {
    const names = operation.security.flatMap((requirement) => Object.keys(requirement));
    if (names.length === 0 || !names.every((name) => this.headerKeys.has(name))) return undefined;
    return this.headerKeys.get(names[0] as string);
  }

  /** Whether the operation can be called without credentials (an empty alternative, or no security). */
  isPublic(operation: Operation): boolean {
    return operation.security.length === 0 || operation.security.some((r) => Object.keys(r).length === 0);
  }

  /** What the request's `Authorization` header comes to, for an operation that is not the token operation. */
  resolve(authorization: string | undefined): Credential {
    if (!authorization) return { kind: 'none' };
    const [scheme = '', ...rest] = authorization.trim().split(/\s+/);
    const value = rest.join(' ');
    if (scheme.toLowerCase() === 'bearer' && this.bearerSchemes.size > 0) {
      const claims = this.verify(value);
      return claims
        ? { kind: 'tenant', tenant: `client:${claims.client}`, scopes: claims.scopes }
        : { kind: 'refused', scheme: 'bearer' };
    }
    if (scheme.toLowerCase() === 'basic' && this.basicSchemes.size > 0 && this.tokenPath === undefined) {
      const user = this.basicUser(value);
      return user ? { kind: 'tenant', tenant: `user:${user}` } : { kind: 'refused', scheme: 'basic' };
    }
    return { kind: 'none' };
  }

  /** The client a token request authenticates as (HTTP Basic), or undefined when the credentials are wrong. */
  client(authorization: string | undefined): string | undefined {
    const [scheme = '', value = ''] = (authorization ?? '').trim().split(/\s+/);
    return scheme.toLowerCase() === 'basic' ? this.basicUser(value) : undefined;
  }

  /** Scopes asked for that the flow does not have (an `invalid_scope`), or the scopes to grant. */
  grant(requested: string | undefined): { granted: string[] } | { unknown: string[] } {
    const asked = (requested ?? '').split(/[\s+]+/).filter((scope) => scope !== '');
    const unknown = asked.filter((scope) => !this.scopes.includes(scope));
    if (unknown.length > 0) return { unknown };
    return { granted: asked.length > 0 ? [...new Set(asked)] : this.scopes };
  }

  issue(client: string, scopes: string[], now = Date.now()): IssuedToken {
    const jti = randomUUID();
    const issuedAt = Math.floor(now / 1000);
    const payload = {
      sub: client,
      client_id: client,
      scope: scopes.join(' '),
      iat: issuedAt,
      exp: issuedAt + TOKEN_SECONDS,
      jti,
    };
    const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'at+jwt' }));
    const body = base64url(JSON.stringify(payload));
    const signature = this.sign(`${header}.${body}`);
    return {
      accessToken: `${header}.${body}.${signature}`,
      scope: payload.scope,
      jti,
      expiresIn: TOKEN_SECONDS,
    };
  }

  /** Forgets a client's secret (a reset): its next token request registers it anew. */
  forgetClient(client: string): void {
    this.secrets.delete(client);
  }

  private verify(token: string, now = Date.now()): TokenClaims | undefined {
    let claims = this.verified.get(token);
    if (!claims) {
      const [header, body, signature] = token.split('.');
      if (!header || !body || !signature) return undefined;
      const expected = Buffer.from(this.sign(`${header}.${body}`));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
      try {
        const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
          client_id: string;
          scope: string;
          exp: number;
        };
        claims = {
          client: payload.client_id,
          scopes: new Set(payload.scope.split(' ').filter(Boolean)),
          expires: payload.exp * 1000,
        };
      } catch {
        return undefined;
      }
      if (this.verified.size >= 10_000) this.verified.clear();
      this.verified.set(token, claims);
    }
    return claims.expires > now ? claims : undefined;
  }

  private sign(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }

  /** The user of HTTP Basic credentials: registered with the first password it uses, refused with another. */
  private basicUser(encoded: string): string | undefined {
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return undefined;
    const user = decoded.slice(0, colon);
    const secret = createHash('sha256')
      .update(decoded.slice(colon + 1))
      .digest();
    const known = this.secrets.get(user);
    if (!known) {
      // Bounded: past the limit, the client registered first is forgotten (its next token registers it anew).
      if (this.secrets.size >= MAX_CLIENTS) this.secrets.delete(this.secrets.keys().next().value as string);
      this.secrets.set(user, secret);
      return user;
    }
    return timingSafeEqual(known, secret) ? user : undefined;
  }
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}
