import type { FastifyInstance } from 'fastify';
import type { OpenApiDocument } from './api-types.js';

/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

const HTTP_METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;

/**
 * CORS for the configured origins only (the docs' try-it console): their preflights answer 204 with the
 * spec's methods and the headers they ask for, and their answers may be read, with the response headers
 * the spec documents. Any other request, OPTIONS without a preflight's headers included, is routed as
 * before (a 405 with Allow in the spec's ApiError shape).
 *
 * A hook of our own rather than @fastify/cors: that one merged its options object twice and resolved the
 * origin on every request (about 6 µs of the 19 a health check cost); a request without `Origin` — every
 * request that is not a browser's — costs one header lookup and one `Vary` here.
 */
export function allowBrowserOrigins(
  app: FastifyInstance,
  origins: readonly string[],
  doc: OpenApiDocument,
): void {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  const exposedHeaders = [...documentedResponseHeaders(doc)].join(', ');
  const allowedMethods = [...documentedMethods(doc)].join(', ');
  app.addHook('onRequest', (request, reply, done) => {
    // Answers differ by Origin, so caches must key on it (the Fetch standard's CORS and HTTP caches).
    reply.header('vary', 'Origin');
    const origin = request.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return done();
    reply.header('access-control-allow-origin', origin);
    const requestedMethod = request.headers['access-control-request-method'];
    if (request.method !== 'OPTIONS' || requestedMethod === undefined) {
      reply.header('access-control-expose-headers', exposedHeaders);
      return done();
    }
    reply.header('vary', 'Origin, Access-Control-Request-Headers');
    reply.header('access-control-allow-methods', allowedMethods);
    const requestedHeaders = request.headers['access-control-request-headers'];
    if (requestedHeaders) reply.header('access-control-allow-headers', requestedHeaders);
    reply.header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
    reply.code(204).send();
  });
}

/** Every method an operation of the spec uses (upper case), HEAD with GET. */
function documentedMethods(doc: OpenApiDocument): Set<string> {
  const methods = new Set<string>();
  for (const item of Object.values(doc.paths ?? {}) as object[]) {
    for (const method of HTTP_METHODS) if (method in item) methods.add(method.toUpperCase());
    if ('get' in item) methods.add('HEAD');
  }
  return methods;
}

/** The names of every response header the spec documents (keys of the responses' `headers`). */
function documentedResponseHeaders(doc: OpenApiDocument): Set<string> {
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'responses' && value && typeof value === 'object') {
        for (const response of Object.values(value)) {
          const headers = (response as { headers?: Record<string, unknown> } | null)?.headers;
          for (const name of Object.keys(headers ?? {})) names.add(name);
        }
      } else walk(value);
    }
  };
  walk(doc.paths);
  walk({ responses: doc.components?.responses });
  return names;
}
