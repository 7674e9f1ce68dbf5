// One HTTP attempt of one delivery: POST over https with node:https and our own Agent, so that the
// things that matter for webhooks are ours to decide: redirects are never followed, one deadline
// covers connect + TLS + response headers, extra CAs can be trusted, and every address connected to
// passes the SSRF guard (the Agent's `lookup`).
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import {
  type AllowList,
  createGuardedLookup,
  literalHostRefusal,
  WebhookTargetRefusedError,
} from './ssrf.js';

export type AttemptOutcome =
  /** Any 2xx. */
  | { kind: 'delivered'; status: number }
  /** 410 Gone: the receiver asks us to stop sending to this subscription. */
  | { kind: 'gone'; status: number }
  /** Worth trying again later (network error, timeout, refused address, 3xx, 4xx, 5xx). */
  | { kind: 'retryable'; status: number | null; error: string; retryAfter?: string }
  /** Can never succeed as stored (e.g. a header value Node refuses to send). */
  | { kind: 'permanent'; status: null; error: string };

export interface SenderOptions {
  timeoutMs: number;
  allowList: AllowList;
  caCertificates: string | undefined;
  /** Connections per receiver host; at least the batch size, so no attempt waits in the agent's queue. */
  maxSocketsPerHost: number;
}

export interface Sender {
  send(url: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome>;
  close(): void;
}

/** Bytes of a response body we read (and drop) so the connection can be reused; more closes it. */
const MAX_DRAINED_BODY_BYTES = 64 * 1024;

/** What a response's status means for the delivery; redirects are reported, never followed. */
function responseOutcome(status: number, headers: IncomingHttpHeaders): AttemptOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 410) return { kind: 'gone', status };
  if (status >= 300 && status < 400) {
    const location = headers.location;
    return {
      kind: 'retryable',
      status,
      error: `HTTP ${status} redirect not followed${location ? ` (Location: ${location.slice(0, 200)})` : ''}`,
    };
  }
  const retryAfter = status === 429 || status === 503 ? headers['retry-after'] : undefined;
  return {
    kind: 'retryable',
    status,
    error: `HTTP ${status}`,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  };
}

export function createSender(options: SenderOptions): Sender {
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: options.maxSocketsPerHost,
    lookup: createGuardedLookup(options.allowList) as never,
    // Node's default roots plus the operator's extra CA (e.g. an internal PKI or a test certificate), as
    // one secure context made here: passed as `ca`, the ~150 certificates would be parsed for every new
    // connection and concatenated into the agent's pool key for every request.
    ...(options.caCertificates
      ? { secureContext: tls.createSecureContext({ ca: [...tls.rootCertificates, options.caCertificates] }) }
      : {}),
  });

  function send(url: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve({
        kind: 'permanent',
        status: null,
        error: `invalid url ${JSON.stringify(url)}`,
      });
    }
    if (target.protocol !== 'https:') {
      return Promise.resolve({ kind: 'permanent', status: null, error: 'the url is not https' });
    }
    const refusal = literalHostRefusal(target, options.allowList);
    if (refusal) return Promise.resolve({ kind: 'retryable', status: null, error: `refused: ${refusal}` });

    return new Promise<AttemptOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        resolve(outcome);
      };
      let request: ReturnType<typeof https.request>;
      try {
        request = https.request(target, {
          method: 'POST',
          agent,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        });
      } catch (error) {
        // Node validates header names and values synchronously (ERR_INVALID_HTTP_TOKEN, ERR_INVALID_CHAR).
        settle({
          kind: 'permanent',
          status: null,
          error: `cannot send request: ${(error as Error).message}`,
        });
        return;
      }
      // One deadline for the whole exchange; it stays armed after the status is known so that a
      // receiver trickling its response body cannot hold the connection open.
      const deadline = setTimeout(() => {
        settle({ kind: 'retryable', status: null, error: `timed out after ${options.timeoutMs} ms` });
        request.destroy();
      }, options.timeoutMs);
      request.on('close', () => clearTimeout(deadline));
      request.on('error', (error: NodeJS.ErrnoException) => {
        const detail =
          error instanceof WebhookTargetRefusedError
            ? `refused: ${error.message}`
            : `${error.code ?? 'error'}: ${error.message}`;
        settle({ kind: 'retryable', status: null, error: detail });
      });
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        let drained = 0;
        response.on('data', (chunk: Buffer) => {
          drained += chunk.length;
          if (drained > MAX_DRAINED_BODY_BYTES) response.destroy();
        });
        response.on('error', () => {});
        response.on('close', () => clearTimeout(deadline));
        settle(responseOutcome(status, response.headers));
      });
      request.end(body);
    });
  }

  return { send, close: () => agent.destroy() };
}
