// A contract client: calls operations by operationId (method and path come from the spec, never from
// a route table here), attaches the credentials the operation's security requirement asks for,
// validates every response with the shared validator and records which operations were exercised.
import {
  isJsonMediaType,
  isObject,
  type JsonObject,
  type Operation,
  type Problem,
  type SpecValidator,
} from '@platform-api/validator';
import { Throttle } from './throttle.js';

export type QueryValue = string | number | boolean | Array<string | number> | undefined;

export interface CallOptions {
  path?: Record<string, string | number>;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  /**
   * A JSON value (serialised) or, with a non-JSON `contentType`, the body text. Bytes (`Uint8Array`,
   * `ArrayBuffer`, `Blob`) are sent as they are, whatever the content type (uploads, broken JSON).
   */
  body?: unknown;
  contentType?: string;
  /** `false` sends no credentials at all, whatever the operation's security says. */
  authenticate?: boolean;
}

/** A request exactly as sent (for reports and `curl` reproduction). */
export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** What came back for a request. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when the response is JSON, otherwise undefined. */
  json: unknown;
  /** From sending the request to the last byte of the answer (of the last attempt, after any 429). */
  elapsedMs?: number;
}

export interface CallResult extends Answer {
  operation: Operation;
  request: SentRequest;
  url: string;
  problems: Problem[];
}

/** Credentials by kind; the client picks what an operation's security schemes need. */
export interface Credentials {
  bearer?: string | (() => Promise<string>);
  basic?: { username: string; password: string };
  /** apiKey schemes, by header name (e.g. `x-chat-bot-token`). */
  apiKeys?: Record<string, string>;
}

export interface ContractClientOptions {
  validator: SpecValidator;
  baseUrl: string;
  credentials?: Credentials;
  fetch?: typeof fetch;
  /** The target's rate limit, shared by the clients of a run (default: this client's own). */
  throttle?: Throttle;
}

export class ContractClient {
  readonly validator: SpecValidator;
  readonly baseUrl: string;
  credentials: Credentials;
  /** operationIds called at least once. */
  readonly called = new Set<string>();
  readonly throttle: Throttle;
  private readonly fetchImpl: typeof fetch;
  /** The token a bearer function gave last (for `secrets`). */
  private lastBearer: string | undefined;

  constructor(options: ContractClientOptions) {
    this.validator = options.validator;
    this.baseUrl = options.baseUrl.replace(/\/$/, '');
    this.credentials = options.credentials ?? {};
    this.fetchImpl = options.fetch ?? fetch;
    this.throttle = options.throttle ?? new Throttle();
  }

  async call(operationId: string, options: CallOptions = {}): Promise<CallResult> {
    const operation = this.validator.operation(operationId);
    const request = await this.prepare(operation, options);
    const answer = await this.send(request);
    this.called.add(operationId);
    const problems = this.validator.validateResponse(operation, {
      status: answer.status,
      headers: answer.headers,
      body: answer.text,
    });
    return { ...answer, operation, request, url: request.url, problems };
  }

  /** The request `call` would send: URL from the path template, credentials, serialised body. */
  async prepare(operation: Operation, options: CallOptions = {}): Promise<SentRequest> {
    const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5' };
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    if (options.authenticate !== false) {
      for (const [name, value] of Object.entries(await this.authHeaders(operation))) {
        headers[name.toLowerCase()] ??= value;
      }
    }
    let body: SentRequest['body'];
    if (options.body !== undefined) {
      const contentType = options.contentType ?? 'application/json';
      headers['content-type'] = contentType;
      // Bytes go out untouched whatever the type (a file upload, or deliberately broken JSON).
      if (options.body instanceof Uint8Array) body = options.body;
      else if (options.body instanceof ArrayBuffer) body = new Uint8Array(options.body);
      else if (options.body instanceof Blob) body = new Uint8Array(await options.body.arrayBuffer());
      else body = isJsonMediaType(contentType) ? JSON.stringify(options.body) : String(options.body);
    }
    return { method: operation.method.toUpperCase(), url: this.url(operation, options), headers, body };
  }

  /**
   * Sends a request as it is (any method, headers, body) and reads the whole answer, waiting out the target's
   * rate limit (a 429 is sent again once the wait it asks for is over: throttle.ts).
   */
  send(request: SentRequest): Promise<Answer> {
    return this.throttle.run(async () => {
      const started = performance.now();
      const answer = await this.sendOnce(request);
      return { ...answer, elapsedMs: performance.now() - started };
    });
  }

  private async sendOnce(request: SentRequest): Promise<Answer> {
    // fetch refuses a body (even an empty one) on GET and HEAD, which generic clients send anyway; and it
    // loses the answer when a server refuses a large body before reading it all (413, then close).
    const size = typeof request.body === 'string' ? request.body.length : (request.body?.byteLength ?? 0);
    if (
      request.body !== undefined &&
      (request.method === 'GET' || request.method === 'HEAD' || size > 1_000_000)
    ) {
      return sendWithNodeHttp(request);
    }
    const response = await this.fetchImpl(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
    });
    const text = await response.text();
    let json: unknown;
    if (isJsonMediaType(response.headers.get('content-type') ?? '')) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  /** Secret values this client sends, by the shell variable a reproduction names them with. */
  secrets(): Record<string, string> {
    const secrets: Record<string, string> = {};
    const bearer = typeof this.credentials.bearer === 'string' ? this.credentials.bearer : this.lastBearer;
    if (bearer) secrets.TOKEN = bearer;
    if (this.credentials.basic) {
      secrets.BASIC_AUTH = Buffer.from(
        `${this.credentials.basic.username}:${this.credentials.basic.password}`,
      ).toString('base64');
    }
    for (const [name, value] of Object.entries(this.credentials.apiKeys ?? {})) {
      secrets[name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')] = value;
    }
    return secrets;
  }

  /** Operations of the spec (not webhooks, optionally not internal ones) never called by this client. */
  uncalled(filter: (operation: Operation) => boolean = () => true): string[] {
    return this.validator.operations
      .filter(
        (operation) =>
          operation.kind === 'path' && filter(operation) && !this.called.has(operation.operationId),
      )
      .map((operation) => operation.operationId);
  }

  private url(operation: Operation, options: CallOptions): string {
    const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = options.path?.[name];
      if (value === undefined) throw new Error(`${operation.operationId}: path parameter ${name} missing`);
      return encodeURIComponent(String(value));
    });
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value) && !explodes(operation, name)) query.append(name, value.join(','));
      else for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item));
    }

    const search = query.toString();
    return `${this.baseUrl}${path}${search ? `?${search}` : ''}`;
  }

  private async authHeaders(operation: Operation): Promise<Record<string, string>> {
    const schemes = (this.validator.document.components?.securitySchemes ?? {}) as Record<string, JsonObject>;
    // The first alternative the client has credentials for wins. Optional security (`{}` beside a
    // scheme) means "anonymous or authenticated": a client holding credentials sends them, so the
    // anonymous alternative is tried last (`authenticate: false` sends none).
    const alternatives = [...operation.security].sort(
      (a, b) => Number(Object.keys(a).length === 0) - Number(Object.keys(b).length === 0),
    );
    for (const requirement of alternatives) {
      const headers: Record<string, string> = {};
      let satisfied = true;
      for (const name of Object.keys(requirement)) {
        const scheme = schemes[name];
        const header = isObject(scheme) ? await this.headerFor(scheme) : undefined;
        if (!header) {
          satisfied = false;
          break;
        }
        headers[header[0]] = header[1];
      }
      if (satisfied) return headers;
    }
    return {};
  }

  private async headerFor(scheme: JsonObject): Promise<[string, string] | undefined> {
    const { bearer, basic, apiKeys } = this.credentials;
    const type = scheme.type;
    const httpScheme = typeof scheme.scheme === 'string' ? scheme.scheme.toLowerCase() : '';
    if (
      (type === 'oauth2' || type === 'openIdConnect' || (type === 'http' && httpScheme === 'bearer')) &&
      bearer
    ) {
      const token = typeof bearer === 'function' ? await bearer() : bearer;
      this.lastBearer = token;
      return ['authorization', `Bearer ${token}`];
    }
    if (type === 'http' && httpScheme === 'basic' && basic) {
      return [
        'authorization',
        `Basic ${Buffer.from(`${basic.username}:${basic.password}`).toString('base64')}`,
      ];
    }
    if (type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string') {
      const value = apiKeys?.[scheme.name] ?? apiKeys?.[scheme.name.toLowerCase()];
      return value === undefined ? undefined : [scheme.name, value];
    }
    return undefined;
  }
}

function byteLength(body: SentRequest['body']): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : (body?.byteLength ?? 0);
}

async function sendWithNodeHttp(request: SentRequest): Promise<Answer> {
  const url = new URL(request.url);
  const { request: open } =
    url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    let answered = false;
    const headers = { ...request.headers, 'content-length': String(byteLength(request.body)) };
    const outgoing = open(url, { method: request.method, headers }, (incoming) => {
      answered = true;
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = isJsonMediaType(headers.get('content-type') ?? '') ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: incoming.statusCode ?? 0, headers, text, json });
      });
    });
    // A server may answer and close before reading the whole body: the write error after an answer is moot.
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    // A large body: its first piece, then a pause in which a server that refuses it by its
    // Content-Length (413) answers; only then the rest. Writing on would meet a closed connection.
    const body = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
    const piece = 64 * 1024;
    if (!body || body.byteLength <= piece) {
      outgoing.end(body);
      return;
    }
    outgoing.write(body.subarray(0, piece));
    setTimeout(() => {
      if (!answered) outgoing.end(body.subarray(piece));
    }, 2000);
  });
}

/**
 * Whether an array query value is sent as repeated `name=a&name=b` (OpenAPI's default for `form`) or,
 * when the parameter says `explode: false`, as one comma-separated `name=a,b`.
 */
function explodes(operation: Operation, name: string): boolean {
  const parameter = operation.parameters.find(
    (candidate) => candidate.node.in === 'query' && candidate.node.name === name,
  );
  return parameter?.node.explode !== false;
}
