// A node:http front before Prism, on the mock's public port. Every request is read whole, then answered
// by the mock's state (state/engine.ts), which asks Prism what it needs, or by Prism alone (`--stateless`,
// and what the state does not model). Prism's answers are held to what the real servers do:
// - a 401 names the request's path (Prism's example names `/v1/users`) and claims an expired token only
//   when one was sent (RFC 6750 §3.1); the callback operation challenges with its own scheme;
// - a 405 carries `Allow`, and on the platform the front answers it itself with an `ApiError`;
// - the rules the spec states beside the schemas (`x-required-in-one-of`), the query forms Prism misreads
//   (query.ts) and a JSON `null` where an object is asked for get the documented 400; a body that is not
//   JSON, or not UTF-8, gets the API's 400 from the front;
// - HEAD on a GET route is asked as GET and answered without the body;
// - WordPress's paging and discovery headers are built from the request.
// It also keeps Prism alive: Prism copies the property names of a refused JSON body into its
// `sl-violations` header, and a name holding U+007F or a character beyond Latin-1 is not a valid header
// value — Node throws and Prism's process dies. Such names are renamed (headerSafeNames) before Prism sees
// them, and bodies that are not UTF-8 never reach it.
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { missingRequiredInOneOf, type Operation, parseRequestBody } from '@platform-api/validator';
import { type DocumentedAnswer, type Refusal, refusalsOf } from './documented.js';
import type { QueryReader } from './query.js';
import type { Answer, StateEngine } from './state/engine.js';

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

/** The answers the front takes from the bundle, for a request's operation (documented.ts). */
export interface Documented {
  answer(method: string, pathname: string, status: number): DocumentedAnswer | undefined;
  /** A documented 400's body about the parameter refused. */
  aboutRefused(method: string, pathname: string, body: Buffer, refusal: Refusal): Buffer;
  /** The largest body the operation takes in a media type (its documented 413's `x-state: {maxBytes}`). */
  bodyLimit(method: string, pathname: string, contentType: string): number | undefined;
  /** Whether an `Accept` names a media type the operation's success answers in, or it documents a 406. */
  acceptable(method: string, pathname: string, accept: string): boolean;
}

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
  /** The answers taken from the bundle (documented.ts): where Prism cannot give the documented one. */
  documented?: Documented;
  /** Whether an empty body of this media type is a body (a CSV without rows); Prism reads it as none. */
  emptyIsBody?: (method: string, pathname: string, contentType: string) => boolean;
  /** Whether the front answers a 405 itself (with `errorBody`), instead of passing Prism's on with `Allow`. */
  ownMethodNotAllowed?: boolean;
  /**
   * WordPress's response headers, built from the request (site): a list's `X-WP-TotalPages` and `Link`
   * to its neighbouring pages (from the mock's own URL, the route, `page` and `per_page`, the example's
   * `X-WP-Total`), and the discovery link `Link: <…/wp-json/>; rel="https://api.w.org/"` on every other
   * answer. `paged` gives a list route's default `per_page`, undefined for any other route.
   */
  wordpress?: { paged(pathname: string): { perPage: number } | undefined };
  /** Called once per answer: `GET /v1/users?limit=5 200 state` (`state` or `prism`: who answered). */
  onAnswer?: (line: string) => void;
  /** The mock's memory (state/): without it every request goes to Prism (`--stateless`). */
  state?: { engine: StateEngine; findOperation(method: string, pathname: string): Operation | undefined };
}

export function createFront(upstream: { host: string; port: number }, options: FrontOptions = {}): Front {
  const { mountPath, allow } = options;
  // Kept-alive loopback connections to Prism (a connection per request ran out of ports under load). One
  // Prism closes for idling just as a request goes out on it is retried on a new one (askPrism).
  const agent = new http.Agent({ keepAlive: true });
  const server = `${MOCK_SERVER} (${options.state ? 'memory' : 'stateless'})`;

  /** The answer to a request, and who gave it: the front, the state or Prism. */
  const serve = async (request: IncomingMessage): Promise<[Answer, 'front' | 'state' | 'prism']> => {
    // The front's own marks come from the front only.
    for (const name of FRONT_HEADERS) delete request.headers[name];
    const mounted = unmount(request, options);
    const body = await readBody(request);
    const [pathname = '/', originalSearch = ''] = (request.url ?? '/').split('?');
    const early = answeredByTheFront(request, pathname, body, options);
    if (early) return [early, 'front'];
    const methods = allow?.(pathname);
    // HEAD is asked as GET; node sends no body in the answer to a HEAD.
    const method = request.method === 'HEAD' && methods?.includes('HEAD') ? 'GET' : (request.method ?? 'GET');
    const verdict = options.query?.(method, pathname, originalSearch);
    const context: ExchangeContext = {
      request,
      method,
      pathname,
      search: verdict ? verdict.search : originalSearch,
      mounted,
      refused: verdict?.refused,
    };
    const refused = verdict?.refused !== undefined || breaksARule(context, originalSearch, body, options);
    // The real servers answer their media type whatever `Accept` says; Prism answers 406, which no operation
    // documents: it is not asked with an `Accept` that names none of the operation's media types.
    const accept = request.headers.accept;
    if (accept && options.documented && !options.documented.acceptable(method, pathname, accept))
      delete request.headers.accept;
    const forwarded = forPrism(context, body, options);
    const exchange = (prefer?: string) =>
      askPrism(agent, upstream, context, forwarded, prefer).then((answer) =>
        fromPrism(answer, context, prefer !== undefined, options),
      );
    const state = options.state;
    const route =
      state && !refused && request.headers.prefer === undefined
        ? state.engine.route(state.findOperation(method, pathname))
        : undefined;
    let answer: Answer;
    if (state && route) {
      const base = `http://${request.headers.host ?? 'localhost'}${mounted ? (mountPath ?? '') : ''}`;
      const asked = { method, pathname, search: originalSearch, headers: request.headers, body, base };
      answer = await state.engine.handle(route, asked, exchange);
    } else answer = await exchange(refused ? 'code=400' : undefined);
    if (options.wordpress) answer = withWordPressHeaders(answer, context, options, state !== undefined);
    return [answer, route ? 'state' : 'prism'];
  };

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const asked = `${request.method} ${request.url}`;
    serve(request).then(
      ([answer, who]) => {
        write(response, answer, server);
        options.onAnswer?.(`${asked} ${answer.status} ${who}`);
      },
      (error: unknown) => {
        write(
          response,
          {
            status: 500,
            rawHeaders: ['Content-Type', 'text/plain; charset=utf-8'],
            body: Buffer.from(`The mock failed: ${(error as Error).message}\n`),
          },
          server,
        );
        options.onAnswer?.(`${asked} 500 front: ${(error as Error).stack ?? error}`);
      },
    );
  };
  return { handle, close: () => agent.destroy() };
}

/** The `Server` header of every answer: `platform-api-mock (memory)`, or `(stateless)`. */
export const MOCK_SERVER = 'platform-api-mock';

/** Paths the mock answers itself, outside the APIs (README: "Control"). */
const CONTROL_PREFIX = '/__mock/';

/** `POST /__mock/reset`: empties the state of the caller's tenant (its credentials say which). */
function control(engine: StateEngine, request: IncomingMessage, pathname: string): Answer {
  if (pathname !== `${CONTROL_PREFIX}reset`)
    return jsonAnswer(404, {
      error: 'not_found',
      message: `No mock control at ${pathname}; try POST /__mock/reset.`,
    });
  if (request.method !== 'POST')
    return jsonAnswer(405, { error: 'method_not_allowed', message: 'POST /__mock/reset' }, ['Allow', 'POST']);
  const tenant = engine.tenantOf(request.headers);
  if (tenant === undefined)
    return jsonAnswer(401, {
      error: 'invalid_credentials',
      message: 'These credentials name no tenant of this mock.',
    });
  engine.reset(tenant);
  return { status: 204, rawHeaders: [], body: Buffer.alloc(0) };
}

/**
 * Takes the mount path (`/wp-json`) off a request under it (true when it was), and reads a path the spec
 * lacks with `//` in it as the same path with those slashes inside a parameter: WordPress's template ids
 * (`theme//slug`) come unencoded in its own links.
 */
function unmount(request: IncomingMessage, options: FrontOptions): boolean {
  const { mountPath } = options;
  let mounted = false;
  if (
    mountPath &&
    (request.url === mountPath ||
      request.url?.startsWith(`${mountPath}/`) ||
      request.url?.startsWith(`${mountPath}?`))
  ) {
    request.url = request.url.slice(mountPath.length).replace(/^(?!\/)/, '/');
    mounted = true;
  }
  const [asked = '/', query] = (request.url ?? '/').split('?');
  if (asked.lastIndexOf('//') > 0 && !options.allow?.(asked)) {
    const encoded = asked.replace(/(?<=.)\/\//g, '%2F%2F');
    if (options.allow?.(encoded)) request.url = query === undefined ? encoded : `${encoded}?${query}`;
  }
  return mounted;
}

/**
 * What the front answers before Prism or the state: its control paths, a method the path does not offer
 * (with the API's error body), a JSON body that is not JSON in UTF-8, a body over the documented limit.
 */
function answeredByTheFront(
  request: IncomingMessage,
  pathname: string,
  body: Buffer,
  options: FrontOptions,
): Answer | undefined {
  const { errorBody } = options;
  if (options.state && pathname.startsWith(CONTROL_PREFIX))
    return control(options.state.engine, request, pathname);
  const methods = options.allow?.(pathname);
  if (methods && !methods.includes(request.method ?? '') && options.ownMethodNotAllowed && errorBody) {
    const message = `Method not allowed; this path supports ${methods.join(', ')}`;
    return jsonAnswer(405, errorBody(405, pathname, message), ['Allow', methods.join(', ')]);
  }
  const method = request.method === 'HEAD' ? 'GET' : (request.method ?? 'GET');
  const contentType = request.headers['content-type'] ?? '';
  const json = /json/i.test(contentType);
  if (json && errorBody && methods && body.length > 0 && body.length <= MAX_RULED_BODY && !isJsonText(body))
    return jsonAnswer(400, errorBody(400, pathname, 'The body is not valid JSON (UTF-8).'));
  const limit = options.documented?.bodyLimit(method, pathname, contentType);
  const tooLarge =
    limit !== undefined && body.length > limit && options.documented?.answer(method, pathname, 413);
  return tooLarge ? fromBundle(tooLarge, pathname) : undefined;
}

/** Whether the request breaks a rule the spec states beside its schemas (a JSON `null`, `x-required-in-one-of`). */
function breaksARule(context: ExchangeContext, search: string, body: Buffer, options: FrontOptions): boolean {
  const { method, pathname, request } = context;
  const contentType = request.headers['content-type'] ?? '';
  if (
    /json/i.test(contentType) &&
    /^\s*null\s*$/.test(body.toString('utf8')) &&
    options.refusesNull?.(method, pathname)
  )
    return true;
  return brokenRule(options.ruled ?? [], method, pathname, search, contentType, body);
}

/**
 * The body as Prism is to read it: property names a header can hold (headerSafeNames), and an empty body the
 * operation takes as a body (a CSV without rows) as a line break, since Prism reads an empty body as none.
 */
function forPrism(context: ExchangeContext, body: Buffer, options: FrontOptions): Buffer {
  const contentType = context.request.headers['content-type'] ?? '';
  if (body.length === 0 && options.emptyIsBody?.(context.method, context.pathname, contentType))
    return Buffer.from('\n');
  return /json/i.test(contentType) && body.length <= MAX_RULED_BODY ? headerSafeNames(body) : body;
}

/** What the front knows of a request while it is answered. */
interface ExchangeContext {
  request: IncomingMessage;
  /** `GET` for a `HEAD`. */
  method: string;
  pathname: string;
  /** The query as Prism gets it (query.ts may have rewritten it). */
  search: string;
  /** Whether it came under the mount path (`/wp-json`): the links built for it keep it. */
  mounted: boolean;
  /** A query parameter the front refused (query.ts). */
  refused: { name: string; message: string } | undefined;
}

const NO_BODY = Buffer.alloc(0);

function readBody(request: IncomingMessage): Promise<Buffer> {
  // Most requests (reads) carry none: nothing to wait for.
  if (request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined) {
    request.resume();
    return Promise.resolve(NO_BODY);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', reject);
    request.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** Whether a request breaks an `x-required-in-one-of` rule of its operation. */
function brokenRule(
  ruled: RuledRoute[],
  method: string,
  pathname: string,
  search: string,
  contentType: string,
  body: Buffer,
): boolean {
  const route = ruled.find((r) => r.method === method && r.path.test(pathname));
  if (!route || body.length > MAX_RULED_BODY) return false;
  const fields = {
    query: new URLSearchParams(search),
    body: parseRequestBody(contentType, body.toString('utf8')),
  };
  return missingRequiredInOneOf(route.operation, fields) !== undefined;
}

/** Prism's answer to the request, whole; a 502 in plain text when Prism does not answer. */
function askPrism(
  agent: http.Agent,
  upstream: { host: string; port: number },
  context: ExchangeContext,
  body: Buffer,
  prefer: string | undefined,
): Promise<Answer> {
  const headers: IncomingHttpHeaders = { ...withoutHopByHop(context.request.headers) };
  if (prefer !== undefined) headers.prefer = prefer;
  headers['content-length'] = String(body.length);
  if (body.length === 0 && context.request.headers['content-length'] === undefined)
    delete headers['content-length'];
  const send = (retry: boolean): Promise<Answer> =>
    new Promise((resolve) => {
      const forwarded = http.request({
        host: upstream.host,
        port: upstream.port,
        method: context.method,
        path: context.search ? `${context.pathname}?${context.search}` : context.pathname,
        headers,
        agent,
      });
      forwarded.on('error', (error) => {
        // Prism keeps no state: asking again, on a new connection, repeats nothing.
        if (retry && forwarded.reusedSocket) {
          resolve(send(false));
          return;
        }
        resolve({
          status: 502,
          rawHeaders: ['Content-Type', 'text/plain; charset=utf-8'],
          body: Buffer.from(`The mock's Prism process did not answer: ${error.message}\n`),
        });
      });
      forwarded.on('response', (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('error', (error) =>
          resolve({
            status: 502,
            rawHeaders: [],
            body: Buffer.from(`Prism's answer broke off: ${error.message}\n`),
          }),
        );
        answer.on('end', () =>
          resolve({
            status: answer.statusCode ?? 502,
            rawHeaders: rawHeadersWithout(answer.rawHeaders, ['content-length']),
            body: Buffer.concat(chunks),
          }),
        );
      });
      forwarded.end(body);
    });
  return send(true);
}

/**
 * Prism's answer as the real servers give it: a 401 naming the request's path and challenging as the
 * operation does, a 405 with `Allow`, a documented answer the front asked for naming the request's path, a
 * 400 about the parameter refused, and the operation's documented 404 or 400 where Prism answers a request it
 * refuses with its own 422 (the operation documents no answer for it: a path parameter the route does not
 * take is no route, WordPress's 404).
 */
function fromPrism(answer: Answer, context: ExchangeContext, asked: boolean, options: FrontOptions): Answer {
  const path = context.pathname;
  if (answer.status === 401) return unauthorized(answer, context, options.challenges ?? []);
  if (answer.status === 405) {
    const methods = options.allow?.(path);
    if (methods)
      return {
        ...answer,
        rawHeaders: [...rawHeadersWithout(answer.rawHeaders, ['allow']), 'Allow', methods.join(', ')],
      };
  }
  const refusal: Refusal | undefined =
    context.refused !== undefined
      ? { location: 'query', ...context.refused }
      : refusalsOf(headerValue(answer.rawHeaders, 'sl-violations'))[0];
  const documented = options.documented;
  if (answer.status === 422 && documented && !documented.answer(context.method, path, 422)) {
    const status = refusal?.location === 'path' ? 404 : 400;
    const replacement =
      documented.answer(context.method, path, status) ?? documented.answer(context.method, path, 404);
    if (replacement) answer = fromBundle(replacement, path);
  }
  let body =
    asked || answer.status === 400 || answer.status === 404 ? rewrittenBody(answer.body, path) : answer.body;
  if (answer.status === 400 && refusal && documented)
    body = documented.aboutRefused(context.method, path, body, refusal);
  return { ...answer, body };
}

/** A documented answer from the bundle, naming the request's path where its body has one. */
function fromBundle(documented: DocumentedAnswer, pathname: string): Answer {
  const body = rewrittenBody(Buffer.from(JSON.stringify(documented.body)), pathname);
  return { status: documented.status, rawHeaders: ['Content-Type', documented.contentType], body };
}

/**
 * The CORS headers Prism (`--cors`) puts on its answers, put on the front's and the state's too: the docs'
 * Try it console calls the mocks from another origin, and a browser reads no answer without them.
 */
const CORS = [
  'Access-Control-Allow-Origin',
  '*',
  'Access-Control-Allow-Headers',
  '*',
  'Access-Control-Allow-Credentials',
  'true',
  'Access-Control-Expose-Headers',
  '*',
];

/** Writes an answer: its status, its headers (without hop-by-hop ones) and its length, then its body. */
function write(response: ServerResponse, answer: Answer, server: string): void {
  const headers = rawHeadersWithout(answer.rawHeaders, ['content-length', 'server']);
  if (headerValue(headers, 'access-control-allow-origin') === undefined) headers.push(...CORS);
  // RFC 9110 §10.2.4: what answers. Clients (the contract suite) tell a mock from the real server by it.
  headers.push('Server', server, 'Content-Length', String(answer.body.length));
  response.writeHead(answer.status, headers);
  response.end(answer.body);
}

function jsonAnswer(status: number, body: unknown, rawHeaders: string[] = []): Answer {
  return {
    status,
    rawHeaders: ['Content-Type', 'application/json; charset=utf-8', ...rawHeaders],
    body: Buffer.from(JSON.stringify(body)),
  };
}

/** Marks earlier versions of the front added for themselves: never taken from a caller. */
const FRONT_HEADERS = ['x-mock-head', 'x-mock-documented-400'];

/** Whether a body is JSON text in UTF-8 (a body that is not gets the API's 400 before Prism sees it). */
function isJsonText(body: Buffer): boolean {
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    return true;
  } catch {
    return false;
  }
}

const API_ROOT_REL = 'https://api.w.org/';

/**
 * WordPress's `X-WP-TotalPages` and `Link` for the request made. From the state, a list carries its own
 * (lists.ts): every other answer gets the API root link (rest_output_link_header). Without state (Prism's
 * examples), a list's pages are those of the example's `X-WP-Total` at the request's `per_page`, with
 * `prev`/`next` links on the mock's own URL (WP_REST_Posts_Controller::get_items).
 */
function withWordPressHeaders(
  answer: Answer,
  context: ExchangeContext,
  options: FrontOptions,
  stateful: boolean,
): Answer {
  const wordpress = options.wordpress;
  if (!wordpress) return answer;
  const origin = `http://${context.request.headers.host ?? 'localhost'}`;
  const apiRoot = `<${origin}${options.mountPath ?? ''}/>; rel="${API_ROOT_REL}"`;
  const paged = isSuccess(answer.status) ? wordpress.paged(context.pathname) : undefined;
  const total = Number(headerValue(answer.rawHeaders, 'x-wp-total'));
  if (stateful || !paged || !Number.isInteger(total)) {
    if (stateful && headerValue(answer.rawHeaders, 'link') !== undefined) return answer;
    return { ...answer, rawHeaders: [...rawHeadersWithout(answer.rawHeaders, ['link']), 'Link', apiRoot] };
  }
  const params = new URLSearchParams(context.search);
  const perPage = positive(params.get('per_page')) ?? paged.perPage;
  const page = positive(params.get('page')) ?? 1;
  const totalPages = Math.ceil(total / perPage);
  const prefix = context.mounted ? (options.mountPath ?? '') : '';
  const link = (n: number) => {
    const query = new URLSearchParams(context.search);
    query.set('page', String(n));
    return `<${origin}${prefix}${context.pathname}?${query}>`;
  };
  const links: string[] = [];
  if (page > 1) links.push(`${link(Math.min(page - 1, totalPages))}; rel="prev"`);
  if (page < totalPages) links.push(`${link(page + 1)}; rel="next"`);
  const rawHeaders = rawHeadersWithout(answer.rawHeaders, ['link', 'x-wp-totalpages']);
  rawHeaders.push(
    'X-WP-TotalPages',
    String(totalPages),
    'Link',
    links.length > 0 ? links.join(', ') : apiRoot,
  );
  return { ...answer, rawHeaders };
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
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

/** Names the request's path in the body and drops token error params when no bearer token was sent. */
function unauthorized(answer: Answer, context: ExchangeContext, challenges: ChallengeRoute[]): Answer {
  const { request, pathname } = context;
  const sentBearer = /^bearer\s+\S/i.test(request.headers.authorization ?? '');
  const route = challenges.find((r) => r.method === context.method && r.path.test(pathname));
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
  return { status: answer.status, rawHeaders, body: rewrittenBody(answer.body, pathname) };
}

function rewrittenBody(original: Buffer, url: string): Buffer {
  if (original.length > MAX_REWRITTEN_BODY) return original;
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
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    if (!HOP_BY_HOP.has(name) && !extra.includes(name))
      kept.push(rawHeaders[i] ?? '', rawHeaders[i + 1] ?? '');
  }
  return kept;
}
