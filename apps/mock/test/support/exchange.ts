// One request to a mock and its answer, held to the spec by the project's one validator: every answer a test
// gets through here conforms (status, content type, headers, body) or the test fails.
import { type OpenApiDocument, SpecValidator } from '@platform-api/validator';
import { expect } from 'vitest';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** A JSON body (objects), or text sent as it is with its content type. */
  body?: unknown;
  contentType?: string;
}

export class Conforming {
  readonly validator: SpecValidator;

  constructor(
    document: OpenApiDocument,
    readonly baseUrl: () => string,
  ) {
    this.validator = new SpecValidator(document);
  }

  async send(method: string, path: string, options: RequestOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | Buffer | undefined;
    if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
      body = options.body;
      headers['content-type'] = options.contentType ?? 'text/plain';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const response = await fetch(`${this.baseUrl()}${path}`, { method, headers, body });
    const text = await response.text();
    const answer: Answer = { status: response.status, headers: response.headers, text, json: undefined };
    try {
      answer.json = text === '' ? undefined : JSON.parse(text);
    } catch {
      answer.json = undefined;
    }
    const pathname = path.split('?')[0] ?? path;
    const operation = this.validator.findOperation(method, pathname.replace(/^\/wp-json(?=\/)/, ''));
    if (operation) {
      const problems = this.validator.validateResponse(operation, {
        status: response.status,
        headers: response.headers,
        body: text,
      });
      // A server error that is not documented (and any 500) is one of the problems.
      expect(problems, `${method} ${path} → ${response.status} ${text.slice(0, 300)}`).toEqual([]);
    } else expect(response.status, `${method} ${path}: ${text.slice(0, 300)}`).toBeLessThan(500);
    return answer;
  }
}

/** HTTP Basic credentials as a header. */
export function basic(user: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

/** A bearer token from the platform mock's token endpoint, for a client (any id: the mock registers it). */
export async function bearer(
  baseUrl: string,
  client: string,
  scope = 'user data chat',
): Promise<Record<string, string>> {
  const response = await fetch(
    `${baseUrl}/oauth/token?grant_type=client_credentials&scope=${encodeURIComponent(scope)}`,
    {
      headers: basic(client, `${client}-secret`),
    },
  );
  const body = (await response.json()) as { access_token?: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return { authorization: `bearer ${body.access_token}` };
}
