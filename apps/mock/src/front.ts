// A node:http front in front of Prism. It forwards every request and response unchanged and streaming,
// except Prism's 401s: Prism answers every 401 with the spec's first example, which names `/v1/users`
// whatever the path and, in `WWW-Authenticate`, says the token expired even when none was sent. And it
// holds requests to the rules the spec states beside the schemas, which Prism cannot read
// (`x-required-in-one-of`): one that breaks them is forwarded asking Prism for the documented 400. And it
// keeps Prism alive: Prism copies the property names of a refused JSON body into its `sl-violations`
// header, and a name holding U+007F or a character beyond Latin-1 is not a valid header value — Node throws
// and Prism's process dies. Such names are renamed (headerSafeNames) before Prism sees them.
// And it answers where Prism does not as the real servers do (FrontOptions): the query forms Prism misreads
// (query.ts), HEAD on GET routes, `Allow` on a 405, the API's error body for malformed JSON, WordPress's
// paging and discovery headers built from the request.
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { missingRequiredInOneOf, type Operation, parseRequestBody } from '@platform-api/validator';
import { sendJson } from './json-response.js';
import type { QueryReader } from './query.js';

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
  /** Reads the query forms Prism misreads (query.ts): a request that breaks them gets the documented 400. */
  query?: QueryReader;
  /**
   * The methods a concrete path offers (HEAD wherever GET is), undefined for a path the spec lacks: HEAD
   * is answered as GET without the body (as the reference server and WordPress do, Prism answers 405),
   * and every 405 carries `Allow`.
   */
  allow?: (pathname: string) => string[] | undefined;
  /**
   * The API's error body, for the answers the front gives itself: a malformed JSON body (400; Prism
   * answers with its own `invalid_json` shape) and, when set, a method the path does not offer (405).
   */
  errorBody?: (status: number, path: string, message: string) => unknown;
  /**
   * Whether the operation's JSON body schema refuses a JSON `null`: Prism takes `null` for no body (a 2xx),
   * the reference server reads it as a body that is not an object (400). Such a request gets the documented 400.
   */
  refusesNull?: (method: string, pathname: string) => boolean;
  /** Whether the front answers a 405 itself (with `errorBody`), instead of passing Prism's on with `Allow`. */
  ownMethodNotAllowed?: boolean;
  /**
   * WordPress's response headers, built from the request (site): a list's `X-WP-TotalPages` and `Link`
   * to its neighbouring pages (from the mock's own URL, the route, `page` and `per_page`, the example's
   * `X-WP-Total`), and the discovery link `Link: <…/wp-json/>; rel="https://api.w.org/"` on every other
   * answer. `paged` gives a list route's default `per_page`, undefined for any other route.
   */
  wordpress?: { paged(pathname: string): { perPage: number } | undefined };
}

export function createFront(upstream: { host: string; port: number }, options: FrontOptions = {}): Front {
  const { challenges = [], ruled = [], mountPath, query, allow, errorBody, wordpress } = options;
  // A new loopback connection per request: a kept-alive one can be closed by Prism (its idle timeout) just
  // as a request is sent on it, and the request then fails with ECONNRESET (a 502 here) for no fault of
  // the caller's.
  const agent = new http.Agent({ keepAlive: false });
  /** Requests that came under `mountPath`: the links the front builds for them keep it. */
  const mounted = new WeakSet<IncomingMessage>();
  /** The URL Prism is asked, when the query was rewritten (query.ts); `request.url` keeps the one sent. */
  const forwardUrls = new WeakMap<IncomingMessage, string>();
  const forward = (
    request: IncomingMessage,
    response: ServerResponse,
    headers: IncomingHttpHeaders,
    body?: Buffer,
  ) => {
    const forwarded = http.request({
      host: upstream.host,
      port: upstream.port,
      // HEAD is asked as GET; node sends no body in the answer to a HEAD.
      method: request.method === 'HEAD' && headers['x-mock-head'] ? 'GET' : request.method,
      path: forwardUrls.get(request) ?? request.url,
      headers: withoutFrontHeaders(headers),
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
      if (answer.statusCode === 401) {
        rewriteUnauthorized(request, answer, response, challenges);
        return;
      }
      let rawHeaders = answer.rawHeaders;
      const pathname = (request.url ?? '/').split('?')[0] ?? '/';
      if (answer.statusCode === 405) {
        const methods = allow?.(pathname);
        if (methods) rawHeaders = [...rawHeadersWithout(rawHeaders, ['allow']), 'Allow', methods.join(', ')];
      }
      if (wordpress) {
        const prefix = mounted.has(request) ? (mountPath ?? '') : '';
        rawHeaders = wordpressHeaders(
          request,
          answer.statusCode ?? 0,
          rawHeaders,
          wordpress,
          prefix,
          mountPath,
        );
      }
      if (headers['x-mock-documented-400']) respondWithPath(request, response, answer, rawHeaders);
      else respond(response, answer, rawHeaders);
    });
    if (body) forwarded.end(body);
    else request.pipe(forwarded);
  };
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    // The front's own marks come from the front only.
    for (const name of FRONT_HEADERS) delete request.headers[name];
    if (
      mountPath &&
      (request.url === mountPath ||
        request.url?.startsWith(`${mountPath}/`) ||
        request.url?.startsWith(`${mountPath}?`))
    ) {
      request.url = request.url.slice(mountPath.length).replace(/^(?!\/)/, '/');
      mounted.add(request);
    }
    const [pathname = '/', originalSearch = ''] = (request.url ?? '/').split('?');
    const frontHeaders: IncomingHttpHeaders = {};
    const methods = allow?.(pathname);
    if (methods && !methods.includes(request.method ?? '')) {
      if (options.ownMethodNotAllowed && errorBody) {
        const message = `Method not allowed; this path supports ${methods.join(', ')}`;
        sendJson(response, 405, errorBody(405, pathname, message), { allow: methods.join(', ') });
        request.resume();
        return;
      }
    } else if (request.method === 'HEAD' && methods) frontHeaders['x-mock-head'] = '1';
    const asked = frontHeaders['x-mock-head'] ? 'GET' : (request.method ?? 'GET');
    const verdict = query?.(asked, pathname, originalSearch);
    const search = verdict ? verdict.search : originalSearch;
    if (verdict && search !== originalSearch)
      forwardUrls.set(request, search ? `${pathname}?${search}` : pathname);
    if (verdict?.invalid) {
      frontHeaders.prefer = 'code=400';
      frontHeaders['x-mock-documented-400'] = '1';
    }
    const route = ruled.find((r) => r.method === request.method && r.path.test(pathname));
    const json = /json/i.test(request.headers['content-type'] ?? '');
    if (!route && !json) {
      forward(request, response, { ...withoutHopByHop(request.headers), ...frontHeaders });
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
      if (json && errorBody && methods && size > 0 && size <= MAX_RULED_BODY && !isJson(received)) {
        sendJson(response, 400, errorBody(400, pathname, 'The body is not valid JSON.'));
        return;
      }
      const body = json && size <= MAX_RULED_BODY ? headerSafeNames(received) : received;
      const headers = { ...withoutHopByHop(request.headers), ...frontHeaders };
      if (json && options.refusesNull && /^\s*null\s*$/.test(received.toString('utf8'))) {
        if (options.refusesNull(request.method ?? 'GET', pathname)) {
          headers.prefer = 'code=400';
          headers['x-mock-documented-400'] = '1';
        }
      }
      if (route && size <= MAX_RULED_BODY) {
        const fields = {
          query: new URLSearchParams(originalSearch),
          body: parseRequestBody(request.headers['content-type'] ?? '', body.toString('utf8')),
        };
        if (missingRequiredInOneOf(route.operation, fields)) {
          headers.prefer = 'code=400';
          headers['x-mock-documented-400'] = '1';
        }
      }
      headers['content-length'] = String(body.length);
      forward(request, response, headers, body);
    });
  };
  return { handle, close: () => agent.destroy() };
}

/** Marks the front adds for itself (never sent to Prism). */
const FRONT_HEADERS = ['x-mock-head', 'x-mock-documented-400'];

function withoutFrontHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept = { ...headers };
  for (const name of FRONT_HEADERS) delete kept[name];
  return kept;
}

function isJson(body: Buffer): boolean {
  try {
    JSON.parse(body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/** The documented 400 the front asked Prism for, naming the request's path as a 401 does. */
function respondWithPath(
  request: IncomingMessage,
  response: ServerResponse,
  answer: IncomingMessage,
  rawHeaders: string[],
): void {
  const chunks: Buffer[] = [];
  answer.on('data', (chunk: Buffer) => chunks.push(chunk));
  answer.on('error', (error) => response.destroy(error));
  answer.on('end', () => {
    const original = Buffer.concat(chunks);
    const body =
      original.length > MAX_REWRITTEN_BODY ? original : rewrittenBody(original, request.url ?? '/');
    respond(response, answer, rawHeaders, body);
  });
}

const API_ROOT_REL = 'https://api.w.org/';

/**
 * WordPress's `X-WP-Total`, `X-WP-TotalPages` and `Link` for the request made (Prism sends the examples'):
 * on a list, the pages of the example's total at the request's `per_page`, with `prev`/`next` links on the
 * mock's own URL (WP_REST_Posts_Controller::get_items); on any other answer, the API root link
 * (rest_output_link_header), as on every WordPress response.
 */
function wordpressHeaders(
  request: IncomingMessage,
  status: number,
  rawHeaders: string[],
  wordpress: NonNullable<FrontOptions['wordpress']>,
  prefix: string,
  mountPath: string | undefined,
): string[] {
  const origin = `http://${request.headers.host ?? 'localhost'}`;
  const [pathname = '/', search = ''] = (request.url ?? '/').split('?');
  const paged = status >= 200 && status < 300 ? wordpress.paged(pathname) : undefined;
  const apiRoot = `<${origin}${mountPath ?? ''}/>; rel="${API_ROOT_REL}"`;
  const total = Number(headerValue(rawHeaders, 'x-wp-total'));
  if (!paged || !Number.isInteger(total)) {
    return [...rawHeadersWithout(rawHeaders, ['link']), 'Link', apiRoot];
  }
  const params = new URLSearchParams(search);
  const perPage = positive(params.get('per_page')) ?? paged.perPage;
  const page = positive(params.get('page')) ?? 1;
  const totalPages = Math.ceil(total / perPage);
  const link = (n: number) => {
    const query = new URLSearchParams(search);
    query.set('page', String(n));
    return `<${origin}${prefix}${pathname}?${query}>`;
  };
  const links: string[] = [];
  if (page > 1) links.push(`${link(Math.min(page - 1, totalPages))}; rel="prev"`);
  if (page < totalPages) links.push(`${link(page + 1)}; rel="next"`);
  const headers = rawHeadersWithout(rawHeaders, ['link', 'x-wp-totalpages']);
  headers.push('X-WP-TotalPages', String(totalPages), 'Link', links.length > 0 ? links.join(', ') : apiRoot);
  return headers;
}

function headerValue(rawHeaders: string[], name: string): string | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === name) return rawHeaders[i + 1];
  }
  return undefined;
}

function positive(text: string | null): number | undefined {
  const value = Number(text);
  return text !== null && Number.isInteger(value) && value > 0 ? value : undefined;
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
