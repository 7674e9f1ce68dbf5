import { randomFillSync } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { OpenApiDocument, Schemas } from './api-types.js';

/*
 * THE error model. Two body shapes, both from the spec: ApiError (general) and OAuthError (token endpoint and
 * bearer-token failures). Handlers throw ApiProblem / OAuthProblem; the error handler renders them. Anything
 * else is logged and answered with a 500 ApiError that reveals nothing.
 */

export interface FieldProblem {
  field: string;
  message: string;
}

/** A general API error (body: ApiError). */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message?: string,
    readonly options: { details?: FieldProblem[]; headers?: Record<string, string> } = {},
  ) {
    super(message ?? STATUS_CODES[status] ?? 'Error');
    this.name = 'ApiProblem';
    this.hasMessage = message !== undefined;
  }
  readonly hasMessage: boolean;
}

/** An OAuth 2.0 / RFC 6750 error (body: OAuthError). */
export class OAuthProblem extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly options: { scope?: string; headers?: Record<string, string> } = {},
  ) {
    super(description);
    this.name = 'OAuthProblem';
  }
}

export const badRequest = (message: string, details?: FieldProblem[]) =>
  new ApiProblem(400, message, details ? { details } : {});

/**
 * The spec's ServiceUnavailable: the database is unreachable or refuses writes (db/faults.ts). Nothing
 * was changed; the client is told when to come back (the cause goes to the log, not to the client).
 */
export function serviceUnavailable(refusesWrites: boolean, retryAfterSeconds: number): ApiProblem {
  const retry = `retry in ${retryAfterSeconds} seconds`;
  return new ApiProblem(
    503,
    refusesWrites
      ? `The database refuses writes at the moment; nothing was changed; ${retry}.`
      : `The database is unavailable; ${retry}.`,
    { headers: { 'retry-after': String(retryAfterSeconds) } },
  );
}

/** Trace ids in the style of the real service ("O6Q67O9N7H-U3ALR-NVA7L"); also the request id in logs. */
const TRACE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** Random bytes drawn in bulk: one system call per 200 trace ids rather than one per request. */
const tracePool = Buffer.alloc(4000);
let traceOffset = tracePool.length;

/** Each random byte's character (byte % 36, as before), as a character code. */
const TRACE_CODES = Uint8Array.from({ length: 256 }, (_, byte) =>
  TRACE_ALPHABET.charCodeAt(byte % TRACE_ALPHABET.length),
);
/** One id's bytes, written in place and read out as one flat string (no 22-piece concatenation). */
const traceBytes = Buffer.alloc(22);

export function newTraceId(): string {
  if (traceOffset + 20 > tracePool.length) {
    randomFillSync(tracePool);
    traceOffset = 0;
  }
  let at = 0;
  for (let i = 0; i < 20; i++) {
    traceBytes[at++] = TRACE_CODES[tracePool[traceOffset + i] as number] as number;
    if (i === 9 || i === 14) traceBytes[at++] = 0x2d; // '-'
  }
  traceOffset += 20;
  return traceBytes.toString('latin1');
}

function requestPath(request: FastifyRequest): string {
  const url = request.raw.url ?? request.url ?? '/';
  const q = url.indexOf('?');
  return q >= 0 ? url.slice(0, q) : url;
}

/**
 * The error bodies' size limits, read from the spec: text the server builds from a request (a long path,
 * a field name a client chose, one detail per invalid item) is clipped to them, so every body it sends
 * matches its schema.
 */
export interface ErrorLimits {
  path: number;
  message: number;
  details: number;
  field: number;
  detail: number;
  description: number;
}

export function errorLimitsOf(doc: OpenApiDocument): ErrorLimits {
  const schemas = doc.components.schemas;
  const apiError = schemas.ApiError.properties;
  const detail = schemas.ApiErrorDetail.properties;
  return {
    path: apiError.path.maxLength,
    message: apiError.message.maxLength,
    details: apiError.details.maxItems,
    field: detail.field.maxLength,
    detail: detail.message.maxLength,
    description: schemas.OAuthError.properties.error_description.maxLength,
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The limits of the spec the app is bound to (app.ts): every error reply is fitted to them. */
    errorLimits: ErrorLimits;
  }
}

/**
 * Text built from a request, made to fit the error schemas: a NUL written as `\u0000` (their patterns
 * forbid the character; a client's text may hold one), then at most `max` characters, a longer text
 * ending with an ellipsis — never cut between the two halves of a surrogate pair.
 */
function fittedText(text: string, max: number): string {
  const written = text.replaceAll('\u0000', '\\u0000');
  if (written.length <= max) return written;
  const end = max - 1;
  const code = written.charCodeAt(end - 1);
  const cut = code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
  return `${written.slice(0, cut)}…`;
}

/** An ApiError body; `path` is left out when the request line could not be read. */
export function apiErrorBody(
  error: {
    status: number;
    message?: string | undefined;
    details?: FieldProblem[] | undefined;
    path?: string;
    toe: string;
  },
  max: ErrorLimits,
): Schemas['ApiError'] {
  const body: Schemas['ApiError'] = {
    status: error.status,
    statusReason: STATUS_CODES[error.status] ?? 'Error',
    toe: error.toe,
  };
  if (error.path !== undefined) body.path = fittedText(error.path, max.path);
  if (error.message !== undefined) body.message = fittedText(error.message, max.message);
  if (error.details && error.details.length > 0) {
    body.details = error.details.slice(0, max.details).map((d) => ({
      field: fittedText(d.field, max.field),
      message: fittedText(d.message, max.detail),
    }));
  }
  return body;
}

export function sendApiError(
  reply: FastifyReply,
  status: number,
  message?: string,
  details?: FieldProblem[],
  headers: Record<string, string> = {},
): FastifyReply {
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(
      apiErrorBody(
        {
          status,
          message,
          details,
          path: requestPath(reply.request),
          toe: String(reply.request.id ?? ''),
        },
        reply.server.errorLimits,
      ),
    );
}

export function sendOAuthError(reply: FastifyReply, problem: OAuthProblem): FastifyReply {
  for (const [name, value] of Object.entries(problem.options.headers ?? {})) reply.header(name, value);
  const body: Record<string, unknown> = {
    error: problem.error,
    error_description: fittedText(problem.description, reply.server.errorLimits.description),
  };
  if (problem.options.scope !== undefined) body.scope = problem.options.scope;
  return reply
    .code(problem.status)
    .type('application/json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(body);
}

interface AjvLikeError {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/**
 * An ApiErrorDetail `field`: the location, then the keys of the path to the field joined by `.`
 * (`body.schema.columns.0.name`, `query.limit`). A key's control characters (U+0000–U+001F, U+007F) and
 * unpaired surrogates are written as `\uXXXX`: a field never carries a NUL, a line break of the request's
 * own, or text that is not Unicode.
 */
const ESCAPED_IN_FIELDS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
  /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function fieldPath(location: string, keys: readonly (string | number)[]): string {
  const escaped = keys.map((key) =>
    String(key).replace(
      ESCAPED_IN_FIELDS,
      (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
    ),
  );
  return [location, ...escaped].join('.');
}

/** Turns Ajv errors into ApiError details: `body.email`, `query.limit`, `path.id` and a readable message. */
export function validationDetails(errors: AjvLikeError[], context: string): FieldProblem[] {
  const prefix = context === 'querystring' ? 'query' : context === 'params' ? 'path' : context;
  const seen = new Set<string>();
  const details: FieldProblem[] = [];
  for (const error of errors) {
    let pointer = (error.instancePath ?? '')
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (error.keyword === 'required' && typeof error.params?.missingProperty === 'string') {
      pointer = [...pointer, error.params.missingProperty];
    }
    if (error.keyword === 'additionalProperties' && typeof error.params?.additionalProperty === 'string') {
      pointer = [...pointer, error.params.additionalProperty];
    }
    if (error.keyword === 'unevaluatedProperties' && typeof error.params?.unevaluatedProperty === 'string') {
      pointer = [...pointer, error.params.unevaluatedProperty];
    }
    const field = fieldPath(prefix, pointer);
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') {
      message = 'is not an allowed property';
    } else if (error.keyword === 'enum' && Array.isArray(error.params?.allowedValues)) {
      message = `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    } else if (error.keyword === 'required') {
      message = 'is required';
    }
    const key = `${field}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push({ field, message });
  }
  return details;
}

/** Fastify's own error codes that are the client's fault, mapped to the statuses the spec documents. */
const FASTIFY_CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'Unsupported Content-Type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Content-Length does not match the body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'Request body is too large' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'Body is empty but Content-Type is application/json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'Body is not valid JSON' },
  FST_ERR_CTP_EMPTY_TYPE: { status: 415, message: 'Content-Type is empty' },
  FST_ERR_CTP_INVALID_TYPE: { status: 415, message: 'Content-Type is invalid' },
  FST_ERR_CTP_INVALID_CHARSET: { status: 415, message: 'Unsupported charset' },
  FST_ERR_BAD_URL: { status: 400, message: 'Malformed URL' },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, message: 'Bad request' },
};

/**
 * What an error means for the client: an ApiProblem or OAuthProblem to render, or undefined for a fault of
 * ours (a 500 that reveals nothing).
 */
export function problemFor(error: FastifyError | Error): ApiProblem | OAuthProblem | undefined {
  if (error instanceof OAuthProblem || error instanceof ApiProblem) return error;
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (Array.isArray(fastifyError.validation)) {
    const context = fastifyError.validationContext ?? 'body';
    const details = validationDetails(fastifyError.validation as AjvLikeError[], context);
    const where =
      context === 'querystring' ? 'query parameters' : context === 'params' ? 'path parameters' : context;
    return new ApiProblem(400, `Invalid ${where}`, { details });
  }
  const known = fastifyError.code ? FASTIFY_CLIENT_ERRORS[fastifyError.code] : undefined;
  if (known) return new ApiProblem(known.status, known.message);
  // Errors thrown by body parsers (e.g. JSON.parse) carry a 4xx statusCode.
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiProblem(status, STATUS_CODES[status] ?? 'Bad request');
  }
  return undefined;
}

/**
 * The token endpoint answers its 400s as RFC 6749 §5.2 `invalid_request`, whatever raised them (a
 * malformed body, a bad parameter, bytes that are not UTF-8).
 */
export function asOAuthProblem(problem: ApiProblem | OAuthProblem): ApiProblem | OAuthProblem {
  if (problem instanceof OAuthProblem || problem.status !== 400) return problem;
  const details = (problem.options.details ?? []).map((d) => `${d.field} ${d.message}`).join('; ');
  return new OAuthProblem(
    400,
    'invalid_request',
    details ? `${problem.message}: ${details}` : problem.message,
  );
}

export function sendProblem(reply: FastifyReply, problem: ApiProblem | OAuthProblem): FastifyReply {
  if (problem instanceof OAuthProblem) return sendOAuthError(reply, problem);
  return sendApiError(
    reply,
    problem.status,
    problem.hasMessage ? problem.message : undefined,
    problem.options.details,
    problem.options.headers,
  );
}

/** The Fastify error handler: renders every error in the spec's shapes. */
export function handleError(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
  shape: (problem: ApiProblem | OAuthProblem) => ApiProblem | OAuthProblem = (problem) => problem,
): FastifyReply {
  const problem = problemFor(error);
  if (problem) return sendProblem(reply, shape(problem));
  request.log.error({ err: error }, 'unhandled error');
  return sendApiError(reply, 500, 'Internal server error');
}

/** What the HTTP parser refused, as the status the client gets. */
const PARSER_ERRORS: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    message: 'The request line and headers are too large (at most 16 KB together)',
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time' },
};

/**
 * Answers a request Node's HTTP parser refused before Fastify saw it (an unknown method, a space in the
 * path, headers over the size limit): an ApiError like every other 4xx, then the connection is closed —
 * and says so, so keep-alive clients do not send their next request into a dead socket.
 */
export function answerClientError(
  error: Error & { code?: string },
  socket: import('node:net').Socket,
  limits: ErrorLimits,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = PARSER_ERRORS[error.code ?? ''] ?? {
    status: 400,
    message: 'The request is not valid HTTP/1.1',
  };
  const body = JSON.stringify(apiErrorBody({ status, message, toe: newTraceId() }, limits));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
