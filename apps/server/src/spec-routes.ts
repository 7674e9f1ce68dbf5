import { type Operation, rebaseRefs, resolveLocal, templateToRegExp } from '@platform-api/validator';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { OpenApiDocument } from './api-types.js';
import { createGuard } from './auth/guard.js';
import {
  ApiProblem,
  type FieldProblem,
  fieldPath,
  OAuthProblem,
  sendApiError,
  validationDetails,
} from './errors.js';
import type { Handler, HandlerMap, HandlerResult } from './handlers/types.js';
import type { RateLimiter } from './rate-limit.js';
import type { Services } from './services.js';
import { toFastifyPath } from './spec.js';

/*
 * Registers one Fastify route per operation of the bundle, by operationId. Nothing here names a path,
 * status code or schema: they all come from the operation. Also registers 405 routes (with `Allow`) for
 * the methods a known path does not support.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    operation?: Operation;
  }
}

function mediaTypeOf(request: FastifyRequest): string | undefined {
  const header = request.headers['content-type'];
  return header ? header.split(';', 1)[0]?.trim().toLowerCase() : undefined;
}

function parametersSchema(
  operation: Operation,
  location: 'path' | 'query' | 'header',
): Record<string, unknown> | undefined {
  const params = operation.parameters.map((p) => p.node).filter((p) => p.in === location);
  if (params.length === 0) return undefined;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const p of params) {
    const name = location === 'header' ? p.name.toLowerCase() : p.name;
    properties[name] = rebaseRefs(p.schema ?? {});
    if (p.required || location === 'path') required.push(name);
  }
  return { type: 'object', properties, required };
}

/** The operation's Fastify schema: params, querystring, headers and per-media-type body, from the spec. */
export function fastifySchemaFor(operation: Operation): FastifySchema {
  const schema: FastifySchema = {};
  const params = parametersSchema(operation, 'path');
  if (params) schema.params = params;
  const query = parametersSchema(operation, 'query');
  if (query) schema.querystring = query;
  const headers = parametersSchema(operation, 'header');
  if (headers) schema.headers = headers;
  if (operation.requestBody) {
    const content: Record<string, { schema: unknown }> = {};
    for (const [mediaType, media] of Object.entries(operation.requestBody.content)) {
      if (media.schema !== undefined) content[mediaType] = { schema: rebaseRefs(media.schema) };
    }
    if (Object.keys(content).length > 0) schema.body = { content } as never;
  }
  const response: Record<string, unknown> = {};
  for (const [status, definition] of Object.entries(operation.responses)) {
    const json = (definition.content as Record<string, { schema?: unknown }> | undefined)?.[
      'application/json'
    ];
    if (/^2\d\d$/.test(status) && json?.schema !== undefined) response[status] = rebaseRefs(json.schema);
  }
  if (Object.keys(response).length > 0) schema.response = response;
  return schema;
}

/**
 * Characters no text of this API may hold, with what the detail says about each: NUL (PostgreSQL cannot
 * store it) and a UTF-16 surrogate without its pair (`"\ud800"` in JSON text: it has no UTF-8 form, and
 * would be stored as U+FFFD). Other control characters are text like any other.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what is looked for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function unstorable(text: string): string | undefined {
  const found = UNSTORABLE.exec(text);
  if (!found) return undefined;
  return found[0] === '\u0000'
    ? 'must not contain NUL characters'
    : 'must not contain unpaired UTF-16 surrogates (text must be Unicode)';
}

type JsonSchema = Record<string, unknown>;

/**
 * The schemas that hold for a value described by `schema`: itself and, through `$ref`s, every
 * `allOf`/`anyOf`/`oneOf` branch (a member one branch describes is described).
 */
function branchesOf(schema: unknown, doc: OpenApiDocument, out: JsonSchema[] = []): JsonSchema[] {
  const node = resolveLocal<unknown>(doc as never, { node: schema, pointer: '' }).node;
  if (!node || typeof node !== 'object') return out;
  const resolved = node as JsonSchema;
  out.push(resolved);
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const branches = resolved[key];
    if (Array.isArray(branches)) for (const branch of branches) branchesOf(branch, doc, out);
  }
  return out;
}

/**
 * Where the operation reads a request value's text, by the schemas that describe it: `member(key)` is
 * undefined for a member an object schema gives no place (not in `properties`, `patternProperties` or a
 * schema `additionalProperties`; a bare `type: object` gives none): the operation never reads it, so what
 * it holds is not looked at. A value nothing describes (WHOLE) is read whole. Built once per place of the
 * schema, its children on first use and keyed by the spec's names only: a client's keys never grow it.
 */
interface TextReading {
  member(key: string): TextReading | undefined;
  item(index: number): TextReading;
}

const WHOLE: TextReading = { member: () => WHOLE, item: () => WHOLE };

function textReadingOf(schemas: JsonSchema[], doc: OpenApiDocument): TextReading {
  if (schemas.length === 0) return WHOLE;
  const properties = new Map<string, JsonSchema[]>();
  const patterns: Array<[RegExp, JsonSchema[]]> = [];
  const others: JsonSchema[] = [];
  const items: JsonSchema[] = [];
  const prefix: JsonSchema[][] = [];
  let listsMembers = false;
  for (const schema of schemas) {
    const described = (schema.properties ?? {}) as Record<string, unknown>;
    const patterned = (schema.patternProperties ?? {}) as Record<string, unknown>;
    if (schema.type === 'object' || schema.properties || schema.patternProperties) listsMembers = true;
    for (const [key, property] of Object.entries(described)) {
      properties.set(key, branchesOf(property, doc, properties.get(key)));
    }
    for (const [pattern, property] of Object.entries(patterned)) {
      patterns.push([new RegExp(pattern, 'u'), branchesOf(property, doc)]);
    }
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      branchesOf(schema.additionalProperties, doc, others);
    }
    if (Array.isArray(schema.prefixItems)) {
      for (const [index, item] of schema.prefixItems.entries())
        prefix[index] = branchesOf(item, doc, prefix[index]);
    }
    if (schema.items && typeof schema.items === 'object') branchesOf(schema.items, doc, items);
  }
  // Keyed by the spec's names and positions only (a property, `additional`, a prefix item, `items`).
  const children = new Map<string, TextReading>();
  const child = (place: string, describing: () => JsonSchema[]): TextReading => {
    let reading = children.get(place);
    if (!reading) {
      reading = textReadingOf(describing(), doc);
      children.set(place, reading);
    }
    return reading;
  };
  return {
    member(key) {
      const matched = patterns.filter(([pattern]) => pattern.test(key)).flatMap(([, branches]) => branches);
      const named = properties.get(key);
      // A key a pattern matches is the client's: read now, never kept.
      if (matched.length > 0) return textReadingOf([...(named ?? []), ...matched, ...others], doc);
      if (named) return child(`property ${key}`, () => [...named, ...others]);
      if (others.length > 0) return child('additional', () => others);
      return listsMembers ? undefined : WHOLE;
    },
    item(index) {
      if (index < prefix.length) return child(`item ${index}`, () => [...(prefix[index] ?? []), ...items]);
      return child('items', () => items);
    },
  };
}

/**
 * Fields whose key or value holds a character no text may hold (UNSTORABLE), wherever the operation reads
 * them (`reading`): a known field, a nested key of one, an item. Refused up front, the same way on both
 * databases. A member the body's schema does not describe is ignored like any other text it holds.
 */
function textProblems(
  value: unknown,
  location: string,
  keys: (string | number)[],
  out: FieldProblem[],
  reading: TextReading,
): FieldProblem[] {
  if (out.length >= 20) return out;
  if (typeof value === 'string') {
    const problem = unstorable(value);
    if (problem) out.push({ field: fieldPath(location, keys), message: problem });
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      textProblems(item, location, [...keys, index], out, reading.item(index));
    }
  } else if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      const member = reading.member(key);
      if (!member) continue;
      const problem = unstorable(key);
      if (problem) out.push({ field: fieldPath(location, [...keys, key]), message: problem });
      else textProblems((value as Record<string, unknown>)[key], location, [...keys, key], out, member);
    }
  }
  return out;
}

/** Throws the 400 that names each field of `problems`, if any. */
function refuseText(problems: FieldProblem[]): void {
  if (problems.length > 0) {
    throw new ApiProblem(400, 'Text must not contain NUL characters or unpaired surrogates', {
      details: problems,
    });
  }
}

/**
 * Whether a request is a health check's (tag `Health`). Orchestrators poll them every few seconds: their
 * requests are not worth a log line each (the LogController's `disableRequestLogging`); their warnings
 * and errors still are. (A route `logLevel` did the same, but gave each request's logger a level of its
 * own, which pino makes by rebuilding every log method of it.)
 */
export function polledRequest(operations: Operation[]): (request: FastifyRequest) => boolean {
  const polled = operations.filter((operation) =>
    (operation.node.tags as string[] | undefined)?.includes('Health'),
  );
  // Asked twice per request (its first and last log line): a set lookup for paths without parameters.
  const paths = new Set(polled.filter((op) => !op.path.includes('{')).map((op) => op.path));
  const patterns = polled.filter((op) => op.path.includes('{')).map((op) => templateToRegExp(op.path));
  return (request) => {
    const url = request.url;
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    return paths.has(path) || patterns.some((pattern) => pattern.test(path));
  };
}

/** Operations whose 400 answer is an OAuthError (the token endpoint): validation failures use that shape. */
export function usesOAuthErrors(operation: Operation): boolean {
  const schema = (
    operation.responses['400']?.content as Record<string, { schema?: { $ref?: string } }> | undefined
  )?.['application/json']?.schema;
  return typeof schema?.$ref === 'string' && schema.$ref.endsWith('/OAuthError');
}

/**
 * Maps a validation failure of a token request to RFC 6749 §5.2 codes: a `grant_type` or `scope` with a
 * value we do not offer is `unsupported_grant_type` / `invalid_scope`; anything else — a parameter missing,
 * repeated (§3.1: parameters must not be included more than once) or malformed — is `invalid_request`.
 */
export function oauthValidationProblem(error: {
  validation: Array<{ keyword?: string; instancePath?: string }>;
  validationContext?: string;
}): OAuthProblem {
  const details = validationDetails(error.validation as never, error.validationContext ?? 'querystring');
  const first = error.validation[0];
  const field = details[0]?.field ?? '';
  const wrongValue = first?.keyword === 'enum' || first?.keyword === 'const' || first?.keyword === 'pattern';
  if (wrongValue && field.endsWith('.grant_type')) {
    return new OAuthProblem(
      400,
      'unsupported_grant_type',
      'Unsupported grant type: only client_credentials is supported',
    );
  }
  if (wrongValue && field.endsWith('.scope'))
    return new OAuthProblem(400, 'invalid_scope', `Invalid scope parameter: ${details[0]?.message}`);
  if (first?.keyword === 'type' && /\.(grant_type|scope)$/.test(field)) {
    return new OAuthProblem(
      400,
      'invalid_request',
      `${field.split('.').pop()} must be given once, as a string`,
    );
  }
  const text = details.map((d) => `${d.field} ${d.message}`).join('; ');
  return new OAuthProblem(400, 'invalid_request', text || 'Invalid token request');
}

/** One route per operation, each with its guard, request checks and deprecation headers. */
export function registerSpecRoutes(
  app: FastifyInstance,
  operations: Operation[],
  handlers: HandlerMap,
  services: Services,
  limiter: RateLimiter,
): void {
  const guardDependencies = { tokens: services.tokens, db: services.db, clock: services.clock, limiter };
  for (const operation of operations) {
    const handler = (handlers as Record<string, Handler | undefined>)[operation.operationId];
    if (!handler) throw new Error(`no handler for operation ${operation.operationId}`);
    const guard = createGuard(operation, guardDependencies);
    const checkRequestText = requestTextCheck(operation, services.doc);
    const deprecation = deprecationHeaders(operation);
    app.route({
      method: operation.method.toUpperCase() as 'GET',
      url: toFastifyPath(operation.path),
      schema: fastifySchemaFor(operation),
      config: { operation },
      ...(deprecation
        ? {
            onSend: async (_request: FastifyRequest, reply: FastifyReply) => {
              reply.headers(deprecation);
            },
          }
        : {}),
      ...(guard.onRequest ? { onRequest: guard.onRequest } : {}),
      ...(guard.preHandler ? { preHandler: guard.preHandler } : {}),
      ...(checkRequestText
        ? {
            // Synchronous, in Fastify's callback style: no promise per request.
            preValidation: (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
              try {
                checkRequestText(request);
              } catch (error) {
                return done(error as Error);
              }
              done();
            },
          }
        : {}),
      handler: answerWith(operation, handler, services),
    });
  }
}

/** An integer as a path or query parameter's text: an optional `-` and decimal digits, nothing else. */
const INTEGER_TEXT = /^-?[0-9]+$/;

/**
 * The operation's path and query parameters whose schema is an integer. Their text is checked before the
 * schema's: the schema validator coerces whatever `Number()` reads (` 1`, `+1`, `1e3`, `1.0`, `0x1`, `0b1`).
 */
function integerParameters(operation: Operation, doc: OpenApiDocument) {
  return (
    operation.parameters
      .map((p) => p.node)
      .filter((p) => p.in === 'path' || p.in === 'query')
      // `doc as never`: the server's type of the bundle and the validator's describe the same document.
      .filter(
        (p) =>
          resolveLocal<{ type?: unknown }>(doc as never, { node: p.schema, pointer: '' }).node?.type ===
          'integer',
      )
      .map((p) => ({
        name: p.name,
        context: p.in === 'path' ? ('params' as const) : ('querystring' as const),
      }))
  );
}

/** The integer parameters spelled otherwise, as the schema validator reports a wrong type. */
function misspelledIntegers(request: FastifyRequest, integers: ReturnType<typeof integerParameters>) {
  for (const context of ['params', 'querystring'] as const) {
    const values = ((context === 'params' ? request.params : request.query) ?? {}) as Record<string, unknown>;
    let validation: object[] | undefined;
    for (const p of integers) {
      const value = values[p.name];
      if (p.context !== context || typeof value !== 'string' || INTEGER_TEXT.test(value)) continue;
      validation ??= [];
      validation.push({
        keyword: 'type',
        instancePath: `/${p.name}`,
        params: { type: 'integer' },
        message: 'must be an integer: an optional - and decimal digits',
      });
    }
    if (validation)
      return Object.assign(new Error('Invalid parameters'), { validation, validationContext: context });
  }
  return undefined;
}

/**
 * The check of the text a request sends: NUL and unpaired surrogates refused wherever the operation reads
 * them (textProblems);
 * integer parameters spelled as integers; a body of a media type the operation does not take refused
 * (415), a required one missing refused (400).
 * Undefined for an operation with nothing to check: every hook costs each request a step (and a promise).
 */
function requestTextCheck(
  operation: Operation,
  doc: OpenApiDocument,
): ((request: FastifyRequest) => void) | undefined {
  const checksRequestText =
    operation.parameters.some((p) => p.node.in === 'path' || p.node.in === 'query') ||
    operation.requestBody !== undefined;
  if (!checksRequestText) return undefined;
  const bodyMediaTypes = Object.keys(operation.requestBody?.content ?? {});
  const queryNames = operation.parameters.filter((p) => p.node.in === 'query').map((p) => p.node.name);
  const integers = integerParameters(operation, doc);
  const bodyReadings = new Map(
    Object.entries(operation.requestBody?.content ?? {}).map(([mediaType, content]) => [
      mediaType,
      textReadingOf(branchesOf((content as { schema?: unknown }).schema, doc), doc),
    ]),
  );
  return (request) => {
    const problems: FieldProblem[] = [];
    textProblems(request.params, 'path', [], problems, WHOLE);
    // Parameters are declared one by one: one the operation does not declare is not read at all.
    const query = request.query as Record<string, unknown>;
    for (const name of queryNames) {
      if (query[name] !== undefined) textProblems(query[name], 'query', [name], problems, WHOLE);
    }
    // A JSON or form body's keys and values, as far as its schema reads them; a CSV document's text (an
    // unknown Content-Type's bytes are refused below, unread).
    if (!Buffer.isBuffer(request.body)) {
      const reading = bodyReadings.get(mediaTypeOf(request) ?? '') ?? WHOLE;
      textProblems(request.body, 'body', [], problems, reading);
    }
    refuseText(problems);
    const misspelled = misspelledIntegers(request, integers);
    if (misspelled) throw misspelled;
    if (!operation.requestBody) return;
    const mediaType = mediaTypeOf(request);
    const accepted = mediaType !== undefined && bodyMediaTypes.includes(mediaType);
    // An empty body is no body, whatever its Content-Type (body-parsers.ts); an empty CSV is a CSV
    // without rows only where CSV is accepted. A JSON `null` is a body, left to the schema.
    if (request.body === undefined || (request.body === '' && !accepted)) {
      if (operation.requestBody.required) {
        throw new ApiProblem(400, `A request body (${bodyMediaTypes.join(' or ')}) is required`);
      }
      return;
    }
    if (!accepted) {
      throw new ApiProblem(415, `Content-Type must be ${bodyMediaTypes.join(' or ')}`);
    }
  };
}

/** The route handler: runs the operation's handler and sends its answer as the spec documents it. */
function answerWith(operation: Operation, handler: Handler, services: Services) {
  const successStatus = operation.successStatus ?? 200;
  // Each documented status → the Content-Type of its body (null: it has none), worked out once.
  const contentTypes = new Map<number, string | null>();
  for (const [status, documented] of Object.entries(operation.responses)) {
    const mediaType = Object.keys((documented.content as Record<string, unknown> | undefined) ?? {})[0];
    contentTypes.set(
      Number(status),
      mediaType === undefined
        ? null
        : mediaType === 'application/json' || mediaType.startsWith('text/')
          ? `${mediaType}; charset=utf-8`
          : mediaType,
    );
  }
  const documents503 = '503' in operation.responses;
  const send = (request: FastifyRequest, reply: FastifyReply, result: HandlerResult): FastifyReply => {
    const status = result.status ?? successStatus;
    // A storage fault episode (db/faults.ts) ends when the database takes a request again: a write that
    // succeeded, or, for an unreachable database, any operation that uses it. Here rather than in a hook
    // every request would run.
    const fault = services.storage.fault;
    if (fault && documents503 && status < 400) {
      const wrote = request.method !== 'GET' && request.method !== 'HEAD';
      if (wrote || fault.kind === 'unreachable') services.storage.recovered(Date.now() - reply.elapsedTime);
    }
    const contentType = contentTypes.get(status);
    if (contentType === undefined)
      throw new Error(`${operation.operationId} answered ${status}, which the spec does not document`);
    if (result.headers) reply.headers(result.headers);
    reply.code(status);
    if (contentType === null || result.body === undefined) return reply.send();
    reply.type(contentType);
    // JSON goes through the route's serializer (the spec's schema); other media types are text.
    return reply.send(contentType.startsWith('application/json') ? result.body : String(result.body));
  };
  // Not an async function: a handler that answers without waiting (the health check) costs no promise.
  return (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | undefined => {
    const result = handler({
      request,
      reply,
      operation,
      services,
      auth: request.auth,
      client: request.apiClient,
      callback: request.callback,
      params: request.params as never,
      query: request.query as never,
      body: request.body as never,
    });
    if (result instanceof Promise) return result.then((answer) => send(request, reply, answer));
    send(request, reply, result);
    return undefined;
  };
}

/**
 * The answer when no route matches: a known path with a method it does not offer — any method, TRACE and
 * PROPFIND included — is 405 with Allow (RFC 9110 §15.5.6); anything else is 404.
 */
export function noRouteAnswer(
  operations: Operation[],
): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  /** Spec path → the methods it offers (HEAD with GET): what a 405's Allow lists. */
  const methodsByPath = new Map<string, Set<string>>();
  for (const operation of operations) {
    const method = operation.method.toUpperCase();
    const methods = methodsByPath.get(operation.path) ?? new Set<string>();
    methods.add(method);
    if (method === 'GET') methods.add('HEAD');
    methodsByPath.set(operation.path, methods);
  }
  const knownPaths = [...methodsByPath].map(([path, methods]) => ({
    pattern: templateToRegExp(path),
    methods,
    allow: [...methods].sort().join(', '),
  }));
  return (request, reply) => {
    const path = (request.raw.url ?? request.url).split('?')[0] ?? '/';
    const known = knownPaths.find((candidate) => candidate.pattern.test(path));
    if (known && !known.methods.has(request.method)) {
      return sendApiError(reply, 405, `Method not allowed; this path supports ${known.allow}`, undefined, {
        allow: known.allow,
      });
    }
    return sendApiError(reply, 404, `No route for ${request.method} ${path}`);
  };
}

/**
 * `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) for an operation marked `deprecated: true` with
 * `x-deprecated-since` and `x-sunset` dates (spec/README.md, "Versions"; a lint rule asks for both).
 */
export function deprecationHeaders(operation: Operation): Record<string, string> | undefined {
  if (!operation.deprecated) return undefined;
  const since = Date.parse(String(operation.node['x-deprecated-since']));
  const sunset = Date.parse(String(operation.node['x-sunset']));
  if (Number.isNaN(since) || Number.isNaN(sunset))
    throw new Error(`${operation.operationId} is deprecated without x-deprecated-since and x-sunset dates`);
  return { deprecation: `@${Math.floor(since / 1000)}`, sunset: new Date(sunset).toUTCString() };
}
