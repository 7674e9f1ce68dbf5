import { httpRequest } from '@platform-api/test-support';
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
    const raw = options.csv !== undefined ? { body: options.csv, contentType: 'text/csv' } : options.raw;
    const result = await httpRequest(baseUrl, {
      method,
      path,
      headers,
      json: options.json,
      form: options.form,
      raw,
    });
    const { status, headers: answered, text, body } = result;
    if (!options.unchecked) {
      const op = findOperation(method, path);
      // A 5xx is a failure unless the operation documents it as an answer (503 of the health checks).
      const documented5xx = status !== 500 && op?.responses[String(status)] !== undefined;
      if (!documented5xx) expect(status, `${method} ${path} answered 5xx: ${text}`).toBeLessThan(500);
      const matchedRoute = op && status !== 404 && status !== 405;
      const problems =
        op && (matchedRoute || (status === 404 && op.responses['404']))
          ? responseProblems(op, status, answered, text)
          : schemaProblems('ApiError', body);
      expect(problems, `${method} ${path} → ${status} ${text.slice(0, 300)}`).toEqual([]);
    }
    return result;
  };
}

export type Call = ReturnType<typeof apiClient>;
