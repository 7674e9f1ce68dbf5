import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import { findOperation, responseProblems, schemaProblems } from './spec-validator.js';

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read fields of validated bodies freely.
  body: any;
}

export interface CallOptions {
  token?: string;
  json?: unknown;
  form?: Record<string, string>;
  csv?: string;
  /** Raw body with its content type. */
  raw?: { body: string | Uint8Array; contentType?: string };
  headers?: Record<string, string>;
  basic?: { id: string; secret: string };
  /** Skip the spec check (for requests that are not an operation of the spec). */
  unchecked?: boolean;
}

/**
 * Calls the server over real HTTP and checks every answer against the spec: a documented operation's
 * response must match it; anything else must be an ApiError.
 */
export function apiClient(baseUrl: string) {
  return async function call(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...(options.headers ?? {}) };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.basic) {
      headers.authorization = `Basic ${Buffer.from(`${options.basic.id}:${options.basic.secret}`).toString('base64')}`;
    }
    let body: string | Uint8Array | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    } else if (options.form) {
      body = new URLSearchParams(options.form).toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    } else if (options.csv !== undefined) {
      body = options.csv;
      headers['content-type'] ??= 'text/csv';
    } else if (options.raw) {
      body = options.raw.body;
      if (options.raw.contentType) headers['content-type'] = options.raw.contentType;
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text.length > 0)
      parsed = JSON.parse(text);
    const result = { status: response.status, headers: response.headers, text, body: parsed };
    if (!options.unchecked) {
      const op = findOperation(method, path);
      // A 5xx is a failure unless the operation documents it as an answer (503 of the health checks).
      const documented5xx = response.status !== 500 && op?.responses[String(response.status)] !== undefined;
      if (!documented5xx)
        expect(response.status, `${method} ${path} answered 5xx: ${text}`).toBeLessThan(500);
      const matchedRoute = op && response.status !== 404 && response.status !== 405;
      const problems =
        matchedRoute || (op && response.status === 404 && op.responses['404'])
          ? responseProblems(op!, response.status, response.headers, text)
          : schemaProblems('ApiError', parsed);
      expect(problems, `${method} ${path} → ${response.status} ${text.slice(0, 300)}`).toEqual([]);
    }
    return result;
  };
}

export type Call = ReturnType<typeof apiClient>;

/** Sends bytes exactly as given (fetch would normalise the path). */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer | string,
) {
  const url = new URL(baseUrl);
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
    (resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    },
  );
}
