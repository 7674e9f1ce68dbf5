import { createSpecAjv, SPEC_ID } from '@platform-api/validator';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import fastJsonStringify from 'fast-json-stringify';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import type { OpenApiDocument } from './api-types.js';
import { LiveClients } from './auth/live-clients.js';
import { SigningKeys } from './auth/signing-keys.js';
import { VerifiedTokens } from './auth/tokens.js';
import { registerBodyParsers } from './body-parsers.js';
import { type Clock, systemClock } from './clock.js';
import type { ServerConfig } from './config.js';
import { allowBrowserOrigins } from './cors.js';
import type { DatabaseHandle } from './db/database.js';
import { isUniqueViolation } from './db/errors.js';
import { STORAGE_RETRY_AFTER_SECONDS, StorageHealth, storageFault } from './db/faults.js';
import { checkWebhookTarget } from './delivery/ssrf.js';
import {
  ApiProblem,
  answerClientError,
  asOAuthProblem,
  type ErrorLimits,
  errorLimitsOf,
  handleError,
  newTraceId,
  sendApiError,
  sendOAuthError,
  serviceUnavailable,
} from './errors.js';
import { handlers } from './handlers/index.js';
import { containsBigInt, stringifyExact } from './json.js';
import { createLogger, withDeferredChildren } from './logger.js';
import { RateLimiter, rateLimitHeaders } from './rate-limit.js';
import type { Services } from './services.js';
import { loadPlatformSpec, servedOperations } from './spec.js';
import {
  noRouteAnswer,
  oauthValidationProblem,
  polledRequest,
  registerSpecRoutes,
  usesOAuthErrors,
} from './spec-routes.js';

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
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const doc = options.doc ?? loadPlatformSpec();
  const operations = servedOperations(doc);
  let shuttingDown = false;
  const bodyAjv = createSpecAjv(doc as never, { coerce: false });
  const services = await createServices(options, logger, doc, bodyAjv, () => shuttingDown);

  const app = createFastify(config, logger, errorLimitsOf(doc), polledRequest(operations));
  validateWithSpec(app, doc, bodyAjv);
  serializeWithSpec(app, doc, logger);
  registerBodyParsers(app, config);
  allowBrowserOrigins(app, config.corsOrigins, doc);
  const answerNoRoute = noRouteAnswer(operations);
  app.setErrorHandler(answerErrors(answerNoRoute, services.storage));
  const limiter = new RateLimiter(config.rateLimit.max, config.rateLimit.windowMs, () =>
    services.clock.now(),
  );
  if (limiter.enabled) sendRateLimitHeaders(app, limiter);
  registerSpecRoutes(app, operations, handlers, services, limiter);
  app.setNotFoundHandler(answerNoRoute);
  await app.ready();

  return {
    app,
    services,
    beginShutdown: () => {
      shuttingDown = true;
    },
  };
}

/** What the handlers use; the signing keys and the live-client cache are loaded here. */
async function createServices(
  options: BuildAppOptions,
  logger: Logger,
  doc: OpenApiDocument,
  schemas: Ajv2020,
  isShuttingDown: () => boolean,
): Promise<Services> {
  const { config, database } = options;
  const clock = options.clock ?? systemClock;
  const keys = new SigningKeys(database.db, clock, () => config.tokenTtlSeconds * 1000);
  // A key exists before the first token is asked for, so the published key set is never empty.
  await keys.current();
  const tokens = {
    clock,
    keys,
    clients: await LiveClients.start(database),
    issuer: () => config.publicUrl,
    verified: new VerifiedTokens(),
  };
  const storage = new StorageHealth(logger);
  return {
    db: database.db,
    messages: database.messages,
    clock,
    storage,
    config,
    doc,
    schemas,
    logger,
    tokens,
    checkWebhookTarget: options.checkWebhookTarget ?? checkWebhookTarget,
    isShuttingDown,
    isReady: async () => !isShuttingDown() && (await storage.check(database)),
  };
}

/** Fastify with our trace ids, limits and router options; what fails before routing answers in the spec's shape. */
function createFastify(
  config: ServerConfig,
  logger: Logger,
  errorLimits: ErrorLimits,
  unlogged: (request: FastifyRequest) => boolean,
): FastifyInstance {
  const app = Fastify({
    // HTTPS when configured (clients such as the Node SDK only speak it); keep-alive as for HTTP.
    ...(config.tls.cert !== undefined && config.tls.key !== undefined
      ? { https: { cert: config.tls.cert, key: config.tls.key } }
      : {}),
    // Each request's child logger made only when it logs (logger.ts).
    loggerInstance: withDeferredChildren(logger) as FastifyBaseLogger,
    // No "incoming request" / "request completed" lines for health checks (spec-routes.ts).
    logController: new LogController({ disableRequestLogging: unlogged as (request: unknown) => boolean }),
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => newTraceId(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Errors Fastify raises before routing (bad percent-encoding in the URL, …) in the spec's shape.
    frameworkErrors: (error, _request, reply) => {
      sendApiError(reply, 400, error.code === 'FST_ERR_BAD_URL' ? 'Malformed URL' : 'Bad request');
    },
    ajv: undefined,
    clientErrorHandler: (error, socket) => answerClientError(error, socket, errorLimits),
  });
  app.decorate('errorLimits', errorLimits);
  return app;
}

/** Validation: Ajv 2020-12 with the whole bundle registered once; coercion only for path/query/header strings. */
function validateWithSpec(app: FastifyInstance, doc: OpenApiDocument, bodyAjv: Ajv2020): void {
  const stringAjv = createSpecAjv(doc as never, { coerce: true });
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart !== 'body') return stringAjv.compile(schema as object) as never;
    const validate = bodyAjv.compile(schema as object);
    // Fastify validates an absent body as null: whether one is required is the operation's `required`,
    // checked before validation (spec-routes.ts), not the schema's business. A JSON `null` sent as the
    // body is validated like any other value. (With `schemaEnv` set, Fastify passes the request along.)
    const validateBody = (data: unknown, context?: { parentData?: { body?: unknown } }) =>
      (data === null && context?.parentData?.body === undefined) || validate(data, context as never);
    Object.defineProperty(validateBody, 'errors', { get: () => validate.errors });
    Object.defineProperty(validateBody, 'schemaEnv', { value: validate.schemaEnv });
    return validateBody as never;
  });
}

/**
 * Response serialization: fast-json-stringify from the spec's response schema when it can compile it;
 * plain JSON.stringify otherwise (it never drops or reshapes fields, and the tests validate every body).
 */
function serializeWithSpec(app: FastifyInstance, doc: OpenApiDocument, logger: Logger): void {
  // Every schema reference in the bundle points into components.schemas: that part alone is what each
  // serializer resolves against (it walks what it is given once per route, and the whole bundle — paths,
  // examples, code samples — is four times as large: a third of the start-up time).
  const referencedSchemas = { components: { schemas: doc.components?.schemas ?? {} } };
  app.setSerializerCompiler(({ schema, url, method, httpStatus }) => {
    let serialize: (data: unknown) => string;
    try {
      // Its internal Ajv only picks oneOf/if branches; OpenAPI annotations are not type errors.
      serialize = fastJsonStringify(schema as never, {
        schema: { [SPEC_ID]: referencedSchemas as never },
        ajv: { strictTypes: false, logger: false },
      }) as (data: unknown) => string;
    } catch (error) {
      logger.debug(
        { url, method, httpStatus, err: (error as Error).message },
        'response schema not compilable; JSON.stringify used',
      );
      return stringifyExact;
    }
    return (data: unknown) => {
      try {
        return serialize(data);
      } catch (error) {
        // A bigint (an integer beyond 2^53) cannot pick a oneOf branch in the serializer's Ajv.
        if (containsBigInt(data)) return stringifyExact(data);
        throw error;
      }
    };
  });
}

/** The error handler: every error in the spec's shapes, the token endpoint's as OAuth errors. */
function answerErrors(
  answerNoRoute: (request: FastifyRequest, reply: FastifyReply) => FastifyReply,
  storage: StorageHealth,
) {
  return (thrown: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const fault = storageFault(thrown);
    if (fault) storage.failed(fault);
    // A unique index caught a concurrent request that won the race past a handler's own check (group
    // names; users' e-mails are answered by their handler, handlers/users.ts).
    const error = fault
      ? serviceUnavailable(fault.kind === 'refuses-writes', STORAGE_RETRY_AFTER_SECONDS)
      : isUniqueViolation(thrown)
        ? new ApiProblem(409, 'A resource with the same unique value was created concurrently.')
        : thrown;
    const operation = request.routeOptions.config?.operation;
    // No route (e.g. a QUERY without Content-Type, which Fastify fails before routing): what is wrong
    // with the request does not matter, that the path has no such operation does (404 or 405).
    if (!operation) return answerNoRoute(request, reply);
    if (usesOAuthErrors(operation)) {
      if (Array.isArray((error as { validation?: unknown }).validation)) {
        return sendOAuthError(reply, oauthValidationProblem(error as never));
      }
      return handleError(error, request, reply, asOAuthProblem);
    }
    return handleError(error, request, reply);
  };
}

/**
 * RateLimit-* on every response while the limiter is on. A request no operation counted (no route, a URL
 * Fastify cannot read) counts here, against its IP; its answer is already decided.
 */
function sendRateLimitHeaders(app: FastifyInstance, limiter: RateLimiter): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const state = request.rateLimit ?? limiter.hit(`ip:${request.ip}`).state;
    if (state) reply.headers(rateLimitHeaders(state));
    done(null, payload);
  });
}
