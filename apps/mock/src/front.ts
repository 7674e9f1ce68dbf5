// A node:http front in front of Prism. It forwards every request and response unchanged and streaming,
// except Prism's 401s: Prism answers every 401 with the spec's first example, which names `/v1/users`
// whatever the path and, in `WWW-Authenticate`, says the token expired even when none was sent. And it
// holds requests to the rules the spec states beside the schemas, which Prism cannot read
// (`x-required-in-one-of`): one that breaks them is forwarded asking Prism for the documented 400. And it
// keeps Prism alive: Prism copies the property names of a refused JSON body into its `sl-violations`
// header, and a name holding U+007F or a character beyond Latin-1 is not a valid header value — Node throws
// and Prism's process dies. Such names are renamed (headerSafeNames) before Prism sees them.
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { missingRequiredInOneOf, type Operation, parseRequestBody } from '@platform-api/validator';

/** Hop-by-hop fields (RFC 9110 §7.6.1): each side of the front has its own connection. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Auth-params that describe a token that was sent; RFC 6750 §3.1: none when the request had no token. */
const TOKEN_ERROR_PARAMS = new Set(['error', 'error_description', 'error_uri']);

/** Largest 401 body rewritten; Prism's are a few hundred bytes, a bigger one passes unchanged. */
const MAX_REWRITTEN_BODY = 64 * 1024;

export interface Front {
  handle(request: IncomingMessage, response: ServerResponse): void;
  /** Closes the kept-alive connections to Prism. */
  close(): void;
}

/** An operation with request rules (`x-required-in-one-of`), and the route it is served on. */
export interface RuledRoute {
  method: string;
  path: RegExp;
  operation: Operation;
}

/** Largest body a rule is checked on; a bigger one goes to Prism unchecked (it answers for its size). */
const MAX_RULED_BODY = 1024 * 1024;

/** A route whose 401 carries its own challenge, not the one of Prism's example. */
export interface ChallengeRoute {
  method: string;
  path: RegExp;
  challenge: string;
}

export interface FrontOptions {
  challenges?: ChallengeRoute[];
  ruled?: RuledRoute[];
  /**
   * The path the API lives under on its real servers (`/wp-json` for the site): a request under it is
   * served as the same request at the root, so the mock answers both `/wp/v2/posts` and
   * `/wp-json/wp/v2/posts`.
   */
  mountPath?: string;
}

export function createFront(upstream: { host: string; port: number }, options: FrontOptions = {}): Front {
  const { challenges = [], ruled = [], mountPath } = options;
  // A new loopback connection per request: a kept-alive one can be closed by Prism (its idle timeout) just
  // as a request is sent on it, and the request then fails with ECONNRESET (a 502 here) for no fault of
  // the caller's.
  const agent = new http.Agent({ keepAlive: false });
  const forward = (
    request: IncomingMessage,
    response: ServerResponse,
    headers: IncomingHttpHeaders,
    body?: Buffer,
  ) => {
    const forwarded = http.request({
      host: upstream.host,
      port: upstream.port,
      method: request.method,
      path: request.url,
      headers,
      agent,
    });
    forwarded.on('error', (error) => {
      if (response.headersSent) {
        response.destroy(error);
        return;
      }
      response.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`The mock's Prism process did not answer: ${error.message}\n`);
    });
    forwarded.on('response', (answer) => {
      if (answer.statusCode === 401) rewriteUnauthorized(request, answer, response, challenges);
      else respond(response, answer, answer.rawHeaders);
    });
    if (body) forwarded.end(body);
    else request.pipe(forwarded);
  };
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    if (
      mountPath &&
      (request.url === mountPath ||
        request.url?.startsWith(`${mountPath}/`) ||
        request.url?.startsWith(`${mountPath}?`))
    )
      request.url = request.url.slice(mountPath.length).replace(/^(?!\/)/, '/');
    const [pathname = '/', search = ''] = (request.url ?? '/').split('?');
    const route = ruled.find((r) => r.method === request.method && r.path.test(pathname));
    const json = /json/i.test(request.headers['content-type'] ?? '');
    if (!route && !json) {
      forward(request, response, withoutHopByHop(request.headers));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
    });
    request.on('error', (error) => response.destroy(error));
    request.on('end', () => {
      const received = Buffer.concat(chunks);
      const body = json && size <= MAX_RULED_BODY ? headerSafeNames(received) : received;
      const headers = withoutHopByHop(request.headers);
      if (route && size <= MAX_RULED_BODY) {
        const fields = {
          query: new URLSearchParams(search),
          body: parseRequestBody(request.headers['content-type'] ?? '', body.toString('utf8')),
        };
        if (missingRequiredInOneOf(route.operation, fields)) headers.prefer = 'code=400';
      }
      headers['content-length'] = String(body.length);
      forward(request, response, headers, body);
    });
  };
  return { handle, close: () => agent.destroy() };
}

/** Characters a header value cannot hold once JSON.stringify has escaped the C0 controls. */
const NOT_IN_A_HEADER = /[\u007f\u0100-\uffff]/g;

/**
 * A JSON body whose property names hold none of NOT_IN_A_HEADER: each such character written as the text
 * `\uXXXX`. The name stays one no schema lists (the specs' names are ASCII), so Prism refuses or ignores it
 * as it would the original. Anything that is not JSON text passes unchanged.
 */
export function headerSafeNames(body: Buffer): Buffer {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    return body;
  }
  let renamed = false;
  const rename = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rename);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node).map(([name, item]) => {
        const safe = name.replace(NOT_IN_A_HEADER, (char) => {
          renamed = true;
          return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
        });
        return [safe, rename(item)];
      }),
    );
  };
  const safe = rename(value);
  return renamed ? Buffer.from(JSON.stringify(safe)) : body;
}

/** Prism's status and headers (hop-by-hop ones dropped), then `body` or Prism's body streamed. */
function respond(
  response: ServerResponse,
  answer: IncomingMessage,
  rawHeaders: string[],
  body?: Buffer,
): void {
  const headers = rawHeadersWithout(rawHeaders, body ? ['content-length'] : []);
  if (body) headers.push('Content-Length', String(body.length));
  response.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
  if (body) response.end(body);
  else answer.pipe(response);
}

/** Names the request's path in the body and drops token error params when no bearer token was sent. */
function rewriteUnauthorized(
  request: IncomingMessage,
  answer: IncomingMessage,
  response: ServerResponse,
  challenges: ChallengeRoute[],
): void {
  const chunks: Buffer[] = [];
  answer.on('data', (chunk: Buffer) => chunks.push(chunk));
  answer.on('error', (error) => response.destroy(error));
  answer.on('end', () => {
    const original = Buffer.concat(chunks);
    const body =
      original.length > MAX_REWRITTEN_BODY ? original : rewrittenBody(original, request.url ?? '/');
    const sentBearer = /^bearer\s+\S/i.test(request.headers.authorization ?? '');
    const pathname = (request.url ?? '/').split('?')[0] ?? '/';
    const route = challenges.find((r) => r.method === request.method && r.path.test(pathname));
    const rawHeaders: string[] = [];
    for (let i = 0; i < answer.rawHeaders.length; i += 2) {
      const name = answer.rawHeaders[i] ?? '';
      let value = answer.rawHeaders[i + 1] ?? '';
      if (name.toLowerCase() === 'www-authenticate') {
        if (route) value = route.challenge;
        else if (!sentBearer) value = withoutTokenErrors(value);
      }
      rawHeaders.push(name, value);
    }
    respond(response, answer, rawHeaders, body);
  });
}

function rewrittenBody(original: Buffer, url: string): Buffer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(original.toString('utf8'));
  } catch {
    return original;
  }
  // Only an error body that names a path (the platform's ApiError) is about the request's path.
  if (!parsed || typeof parsed !== 'object' || typeof (parsed as { path?: unknown }).path !== 'string') {
    return original;
  }
  const path = url.split('?')[0] ?? url;
  return Buffer.from(JSON.stringify({ ...parsed, path }));
}

/** `Bearer realm="x", error="invalid_token", error_description="…"` → `Bearer realm="x"`. */
export function withoutTokenErrors(challenge: string): string {
  const match = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(.*)$/s.exec(challenge);
  if (!match) return challenge;
  const [, scheme, rest = ''] = match;
  const params: string[] = [];
  for (const param of rest.matchAll(/([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^,\s]*)/g)) {
    if (!TOKEN_ERROR_PARAMS.has((param[1] ?? '').toLowerCase())) params.push(`${param[1]}=${param[2]}`);
  }
  return params.length > 0 ? `${scheme} ${params.join(', ')}` : `${scheme}`;
}

function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

function rawHeadersWithout(rawHeaders: string[], extra: string[]): string[] {
  const dropped = new Set([...HOP_BY_HOP, ...extra]);
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    if (!dropped.has(name.toLowerCase())) kept.push(name, rawHeaders[i + 1] ?? '');
  }
  return kept;
}
