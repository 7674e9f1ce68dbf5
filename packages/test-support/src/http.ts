// HTTP for tests, at the three depths they need: `httpRequest` (fetch, body encoded and the answer parsed),
// `rawHttpRequest` (node:http, so the path and headers go out exactly as given: fetch normalises paths and
// header names), and `rawExchange` (a TCP socket, for bytes that are not valid HTTP at all).
import { request as nodeRequest } from 'node:http';
import { connect } from 'node:net';

export interface HttpRequest {
  method: string;
  /** Path and query, appended to the base URL. */
  path: string;
  headers?: Record<string, string>;
  /** Sent as JSON with `content-type: application/json` unless a content type is given. */
  json?: unknown;
  /** Sent as `application/x-www-form-urlencoded`. */
  form?: Record<string, string>;
  /** Sent as is, with `contentType` when given. */
  raw?: { body: string | Uint8Array; contentType?: string };
}

export interface HttpResponse<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON when the answer says it is JSON, else the text. */
  body: T;
}

export async function httpRequest<T = unknown>(
  baseUrl: string,
  request: HttpRequest,
): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { ...request.headers };
  const contentType = Object.keys(headers).find((name) => name.toLowerCase() === 'content-type');
  const setType = (type: string) => {
    if (contentType === undefined) headers['content-type'] = type;
  };
  let body: string | Uint8Array | undefined;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    setType('application/json');
  } else if (request.form) {
    body = new URLSearchParams(request.form).toString();
    setType('application/x-www-form-urlencoded');
  } else if (request.raw) {
    body = request.raw.body;
    if (request.raw.contentType) setType(request.raw.contentType);
  }
  const response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers, body });
  const text = await response.text();
  const isJson = /[/+]json\b/.test(response.headers.get('content-type') ?? '') && text.length > 0;
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: (isJson ? JSON.parse(text) : text) as T,
  };
}

export interface RawHttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends the request line and headers exactly as given. */
export function rawHttpRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer | string,
): Promise<RawHttpResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = nodeRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
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
  });
}

/** Writes `bytes` to the server's port and returns everything it answers until it closes the connection. */
export function rawExchange(baseUrl: string, bytes: string): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
  });
}
