import fastJsonStringify from 'fast-json-stringify';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pino, { type Logger } from 'pino';
import { createSpecAjv } from './ajv.js';
import { type Clock, systemClock } from './clock.js';
import type { ServerConfig } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import { checkWebhookTarget } from './delivery/ssrf.js';
import { ApiProblem, handleError, newTraceId, sendApiError, sendOAuthError } from './errors.js';
import { handlers } from './handlers/index.js';
import type { Services } from './handlers/types.js';
import { RateLimiter } from './rate-limit.js';
import { listOperations, loadPlatformSpec, type OpenApiDocument, SPEC_ID } from './spec.js';
import { oauthValidationProblem, registerSpecRoutes, usesOAuthErrors } from './spec-routes.js';

/** Headers and fields that must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-chat-bot-token"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.clientSecret',
  '*.client_secret',
  '*.access_token',
  '*.signingSecret',
  '*.secret',
  '*.password',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}

/** No request body of the API nests anywhere near this deep. */
const MAX_JSON_DEPTH = 32;

/** Whether JSON text nests arrays/objects deeper than `max` (a linear scan that skips strings). */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

export interface BuildAppOptions {
  config: ServerConfig;
  database: DatabaseHandle;
  clock?: Clock;
  logger?: Logger;
  /** Defaults to the bundle from @platform-api/spec. */
  doc?: OpenApiDocument;
  /** Replaces the SSRF check (tests that deliver to local receivers pass an allow-list instead). */
  checkWebhookTarget?: Services['checkWebhookTarget'];
}

export interface PlatformApp {
  app: FastifyInstance;
  services: Services;
  /** Marks the app as shutting down: readiness turns 503 while in-flight requests finish. */
  beginShutdown(): void;
}

/**
 * Builds the Fastify app bound to the spec: every route, validator and response serializer comes from
 * the bundled description; handlers are looked up by operationId.
 */
export async function buildApp(options: BuildAppOptions): Promise<PlatformApp> {
  const { config, database } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const doc = options.doc ?? loadPlatformSpec();
  const operations = listOperations(doc);
  let shuttingDown = false;

  const services: Services = {
    db: database.db,
    dialect: database.dialect,
    clock,
    config,
    doc,
    logger,
    checkWebhookTarget: options.checkWebhookTarget ?? checkWebhookTarget,
    isShuttingDown: () => shuttingDown,
    outboxWritten: () => {},
    isReady: async () => {
      if (shuttingDown) return false;
      try {
        await sql`select 1`.execute(database.db);
        return true;
      } catch {
        return false;
      }
    },
  };

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => newTraceId(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Errors Fastify raises before routing (bad percent-encoding in the URL, …) in the spec's shape.
    frameworkErrors: (error, _request, reply) => {
      sendApiError(reply, 400, error.code === 'FST_ERR_BAD_URL' ? 'Malformed URL' : 'Bad request');
    },
    ajv: undefined,
  });

  // Validation: Ajv 2020-12 with the whole bundle registered once; coercion only for path/query/header strings.
  const bodyAjv = createSpecAjv(doc, { coerce: false });
  const stringAjv = createSpecAjv(doc, { coerce: true });
  app.setValidatorCompiler(
    ({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : stringAjv).compile(schema as object) as never,
  );
  // Response serialization: fast-json-stringify from the spec's response schema when it can compile it;
  // plain JSON.stringify otherwise (it never drops or reshapes fields, and the tests validate every body).
  app.setSerializerCompiler(({ schema, url, method, httpStatus }) => {
    try {
      // Its internal Ajv only picks oneOf/if branches; OpenAPI annotations are not type errors.
      return fastJsonStringify(schema as never, {
        schema: { [SPEC_ID]: doc as never },
        ajv: { strictTypes: false, logger: false },
      }) as (data: unknown) => string;
    } catch (error) {
      logger.debug(
        { url, method, httpStatus, err: (error as Error).message },
        'response schema not compilable; JSON.stringify used',
      );
      return (data: unknown) => JSON.stringify(data);
    }
  });

  // Bodies: JSON (above), form (token endpoint), CSV (dataset data, larger limit); anything else is
  // read as bytes so the route can answer 415 itself with the media types the spec lists.
  // JSON: Fastify's own parser (refuses __proto__/constructor poisoning), behind a nesting-depth check, so a
  // deeply nested body is a 400 instead of a stack overflow in the parser or the validator.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonDepthExceeds(body as string, MAX_JSON_DEPTH)) {
      done(new ApiProblem(400, `Body is nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      const params = new URLSearchParams(body as string);
      const out: Record<string, string | string[]> = {};
      for (const [key, value] of params) {
        const previous = out[key];
        out[key] =
          previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
      }
      done(null, out);
    },
  );
  app.addContentTypeParser(
    'text/csv',
    { parseAs: 'string', bodyLimit: config.csvBodyLimitBytes },
    (_request, body, done) => done(null, body),
  );
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error, request, reply) => {
    const operation = request.routeOptions.config?.operation;
    if (
      operation &&
      usesOAuthErrors(operation) &&
      Array.isArray((error as { validation?: unknown }).validation)
    ) {
      return sendOAuthError(reply, oauthValidationProblem(error as never));
    }
    return handleError(error as FastifyError, request, reply);
  });
  app.setNotFoundHandler((request, reply) => {
    sendApiError(reply, 404, `No route for ${request.method} ${request.url.split('?')[0]}`);
  });

  const limiter = new RateLimiter(config.rateLimit.max, config.rateLimit.windowMs, () => clock.now());
  registerSpecRoutes(app, operations, handlers, services, limiter);
  await app.ready();

  return {
    app,
    services,
    beginShutdown: () => {
      shuttingDown = true;
    },
  };
}
