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

export interface CallResult {
  operation: Operation;
  url: string;
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when the response is JSON, otherwise undefined. */
  json: unknown;
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
}

export class ContractClient {
  readonly validator: SpecValidator;
  readonly baseUrl: string;
  credentials: Credentials;
  /** operationIds called at least once. */
  readonly called = new Set<string>();
  private readonly fetchImpl: typeof fetch;

  constructor(options: ContractClientOptions) {
    this.validator = options.validator;
    this.baseUrl = options.baseUrl.replace(/\/$/, '');
    this.credentials = options.credentials ?? {};
    this.fetchImpl = options.fetch ?? fetch;
  }

  async call(operationId: string, options: CallOptions = {}): Promise<CallResult> {
    const operation = this.validator.operation(operationId);
    const url = this.url(operation, options);
    const headers = new Headers({ accept: 'application/json, */*;q=0.5', ...options.headers });
    if (options.authenticate !== false) {
      for (const [name, value] of Object.entries(await this.authHeaders(operation))) {
        if (!headers.has(name)) headers.set(name, value);
      }
    }
    let body: RequestInit['body'];
    if (options.body !== undefined) {
      const contentType = options.contentType ?? 'application/json';
      headers.set('content-type', contentType);
      // Bytes go out untouched whatever the type (a file upload, or deliberately broken JSON).
      if (isBytes(options.body)) body = options.body as RequestInit['body'];
      else body = isJsonMediaType(contentType) ? JSON.stringify(options.body) : String(options.body);
    }
    const response = await this.fetchImpl(url, {
      method: operation.method.toUpperCase(),
      headers,
      body,
      redirect: 'manual',
    });
    const text = await response.text();
    this.called.add(operationId);
    let json: unknown;
    if (isJsonMediaType(response.headers.get('content-type') ?? '')) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    const problems = this.validator.validateResponse(operation, {
      status: response.status,
      headers: response.headers,
      body: text,
    });
    return { operation, url, status: response.status, headers: response.headers, text, json, problems };
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
      return ['authorization', `Bearer ${typeof bearer === 'function' ? await bearer() : bearer}`];
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

function isBytes(value: unknown): boolean {
  return value instanceof Uint8Array || value instanceof ArrayBuffer || value instanceof Blob;
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
