// The endpoint behind an event's `callback.url` while `trigger` runs: it plays the service's side of the
// callback operation (postCallbackMessage) for one channel and one token. It checks the token, the
// content type, the size and the body against the spec, and answers as the spec documents: 201 with the
// posted ChatMessage, or an ApiError (400 with `details`, 401, 404, 405, 413, 415).
import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSpecAjv, isJsonMediaType, isObject, joinPointer, SPEC_ID } from '@platform-api/validator';
import { CALLBACK_CHALLENGE, type ChatEvents } from './events.js';
import { sendJson } from './json-response.js';

/** Where the endpoint listens unless told: this machine only. */
export const CALLBACK_HOST = '127.0.0.1';

/** The JSON body limit the spec's PayloadTooLarge response states (1 MiB). */
const MAX_BODY_BYTES = 1024 * 1024;

export interface PostBack {
  /** The status the callback endpoint answered. */
  status: number;
  accepted: boolean;
  /** Why it was refused (empty when accepted). */
  problems: string[];
  /** The body as received. */
  body: string;
  /** The answer sent (a ChatMessage or an ApiError). */
  answer: unknown;
}

export interface CallbackServerOptions {
  events: ChatEvents;
  channelId: string;
  token: string;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The base of `callback.url` as the receiver should see it (e.g. a tunnel); default `http://host:port`. */
  publicBaseUrl?: string;
}

export interface CallbackServer {
  /** The callback URL to put in the event's payload. */
  url: string;
  /** Resolves with the first post-back made to `url` (accepted or refused). */
  postBack: Promise<PostBack>;
  close(): Promise<void>;
}

/** What a post-back is checked against and answered with: one event's callback, for one channel and token. */
interface CallbackEndpoint {
  path: string;
  method: string;
  channelId: string;
  token: string;
  tokenHeader: string;
  contentType: string;
  validateBody: (value: unknown) => Detail[];
  created: ReturnType<typeof successAnswer>;
}

type Answer = Omit<PostBack, 'body'> & { headers?: Record<string, string> };

export async function startCallbackServer(options: CallbackServerOptions): Promise<CallbackServer> {
  const endpoint = callbackEndpoint(options);
  let settle: (postBack: PostBack) => void = () => {};
  const postBack = new Promise<PostBack>((resolve) => {
    settle = resolve;
  });
  const server = http.createServer((request, response) => {
    const pathname = (request.url ?? '/').split('?')[0] ?? '/';
    if (pathname !== endpoint.path) {
      sendJson(
        response,
        404,
        error(404, pathname, `No callback here; this event's callback is ${endpoint.path}.`),
      );
      return;
    }
    if (request.method !== endpoint.method) {
      sendJson(response, 405, error(405, pathname, `Use ${endpoint.method}.`), { allow: endpoint.method });
      return;
    }
    readBody(request, MAX_BODY_BYTES).then((body) => {
      const result = answer(endpoint, request, body);
      // Settled once the answer is sent: `trigger` closes this server as soon as it has the post-back.
      response.once('finish', () => settle({ ...result, body: body ?? '' }));
      sendJson(response, result.status, result.answer, result.headers);
    });
  });
  const host = options.host ?? CALLBACK_HOST;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const base = options.publicBaseUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: `${base.replace(/\/+$/, '')}${endpoint.path}`,
    postBack,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive connections go now; one still being answered gets a moment to finish.
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1000).unref();
      }),
  };
}

/** The callback operation of the spec, bound to the event's channel and token. */
function callbackEndpoint(options: CallbackServerOptions): CallbackEndpoint {
  const { events, channelId, token } = options;
  const { operation, tokenHeader, contentType } = events.callback;
  const parameters = operation.path.match(/\{[^}]+\}/g) ?? [];
  if (parameters.length !== 1)
    throw new Error(`${operation.operationId}: expected one path parameter (the channel)`);
  return {
    path: operation.path.replace(/\{[^}]+\}/, encodeURIComponent(channelId)),
    method: operation.method.toUpperCase(),
    channelId,
    token,
    tokenHeader,
    contentType,
    validateBody: bodyValidator(events, contentType),
    created: successAnswer(events),
  };
}

/** The answer to a post-back on the endpoint's path: the created message, or why it is refused. */
function answer(endpoint: CallbackEndpoint, request: IncomingMessage, body: string | undefined): Answer {
  const { tokenHeader, contentType } = endpoint;
  const refuse = (
    status: number,
    message: string,
    extra: { details?: Detail[]; headers?: Record<string, string> } = {},
  ): Answer => ({
    status,
    accepted: false,
    problems: [message, ...(extra.details ?? []).map((detail) => `${detail.field}: ${detail.message}`)],
    answer: error(status, endpoint.path, message, extra.details),
    ...(extra.headers ? { headers: extra.headers } : {}),
  });
  const sent = request.headers[tokenHeader];
  if (typeof sent !== 'string') {
    return refuse(401, `The ${tokenHeader} header is required.`, {
      headers: { 'www-authenticate': CALLBACK_CHALLENGE },
    });
  }
  if (sent !== endpoint.token) {
    return refuse(401, `The ${tokenHeader} is not valid for this channel.`, {
      headers: { 'www-authenticate': CALLBACK_CHALLENGE },
    });
  }
  const type = request.headers['content-type'] ?? '';
  if ((type.split(';')[0] ?? '').trim().toLowerCase() !== contentType.toLowerCase()) {
    return refuse(415, `Content-Type must be ${contentType}.`);
  }
  if (body === undefined) return refuse(413, `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return refuse(400, 'The request body is not valid JSON.');
  }
  const details = endpoint.validateBody(value);
  if (details.length > 0) return refuse(400, 'The request body is invalid.', { details });
  const text = isObject(value) && isObject(value.content) ? value.content.text : undefined;
  return {
    status: endpoint.created.status,
    accepted: true,
    problems: [],
    answer: endpoint.created.build(endpoint.channelId, String(text)),
  };
}

interface Detail {
  field: string;
  message: string;
}

/** The parts of an Ajv error and validate function read here. */
interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}
type Validate = ((value: unknown) => boolean) & { errors?: SchemaError[] | null };

/** Validates a post-back body against the callback operation's request schema, as ApiError details. */
function bodyValidator(events: ChatEvents, contentType: string): (value: unknown) => Detail[] {
  const { operation } = events.callback;
  if (!operation.requestBody || !isJsonMediaType(contentType))
    throw new Error('The callback body is not JSON');
  const ajv = createSpecAjv(events.validator.document);
  const pointer = joinPointer(operation.requestBody.pointer, 'content', contentType, 'schema');
  const validate = ajv.getSchema(`${SPEC_ID}${pointer}`) as Validate | undefined;
  if (!validate) throw new Error(`No schema at ${pointer}`);
  return (value) => (validate(value) ? [] : details(validate.errors ?? []));
}

/** Ajv errors as `{field, message}`, the field a dotted path into the body (`body.content.text`). */
function details(errors: SchemaError[]): Detail[] {
  return errors.map((problem) => {
    const tokens = problem.instancePath
      .split('/')
      .slice(1)
      .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
    const missing = problem.params.missingProperty;
    if (problem.keyword === 'required' && typeof missing === 'string') tokens.push(missing);
    return { field: ['body', ...tokens].join('.'), message: problem.message ?? 'is invalid' };
  });
}

/** The operation's success status and its example answer, filled in for one post-back. */
function successAnswer(events: ChatEvents): {
  status: number;
  build(channelId: string, text: string): unknown;
} {
  const { operation } = events.callback;
  const status = operation.successStatus;
  const content = status === undefined ? undefined : operation.responses[String(status)]?.content;
  const media = isObject(content) ? Object.values(content)[0] : undefined;
  const example = isObject(media) ? events.firstExample(media) : undefined;
  if (status === undefined || !example)
    throw new Error(`${operation.operationId} has no example success answer`);
  return {
    status,
    build: (channelId, text) => ({
      ...example,
      id: `msg_${randomBytes(6).toString('hex')}`,
      channelId,
      text,
      createdAt: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    }),
  };
}

/** The spec's ApiError. */
function error(status: number, path: string, message: string, details?: Detail[]): unknown {
  return {
    status,
    statusReason: http.STATUS_CODES[status] ?? 'Error',
    path,
    message,
    toe: `MOCK-${randomBytes(6).toString('hex').toUpperCase()}`,
    ...(details && details.length > 0 ? { details } : {}),
  };
}

/** The body as text, or undefined when it is longer than `limit` bytes (the rest is not read). */
function readBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        resolve(undefined);
        request.removeAllListeners('data');
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', () => resolve(undefined));
  });
}
