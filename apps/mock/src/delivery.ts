// Sending one chat event as the service sends it: the integration's configured headers, then the
// delivery's own (content type, `webhook-id`, the event type header, a Standard Webhooks signature when
// there is a secret), which no configured one replaces; one POST, no redirect followed, one deadline for
// connect, TLS and the answer. `trigger` and the mock's memory (state/deliveries.ts) both send this way.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { type ChatEvent, STANDARD_WEBHOOKS_HEADERS } from './events.js';
import { signDelivery } from './signing.js';

/** Framing fields Node sets for the request itself; a configured header of these names is not sent. */
const FRAMING_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'upgrade',
]);

/** Bytes of the receiver's answer kept for the report. */
const MAX_ANSWER_BYTES = 2048;

export interface Delivery {
  /** The receiver's status, or undefined when there was none (network error, timeout). */
  status?: number;
  error?: string;
  /** The start of the receiver's answer. */
  answer: string;
}

export interface DeliveryOptions {
  /** The delivery's deadline: the spec's 10 seconds by default. */
  timeoutMs?: number;
  /** Extra CA certificates (PEM) to trust for an https receiver. */
  ca?: string;
  /** Accept any certificate. */
  insecure?: boolean;
}

/** The headers of one delivery of `body`; signed when a secret is given. */
export function deliveryHeaders(options: {
  event: ChatEvent;
  webhookId: string;
  configured: Record<string, string>;
  secret: string | undefined;
  body: string;
  userAgent: string;
}): Record<string, string> {
  const { event, webhookId, secret, body } = options;
  const headers: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(options.configured)) {
    if (!FRAMING_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  headers['user-agent'] ??= options.userAgent;
  Object.assign(headers, {
    'content-type': event.contentType,
    [STANDARD_WEBHOOKS_HEADERS.id]: webhookId,
    [event.eventTypeHeader]: event.type,
    ...(secret ? signDelivery(secret, webhookId, Date.now(), body) : {}),
  });
  return headers;
}

/** The delivery's deadline, the spec's: what the service waits for a receiver. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** One POST, no redirects followed, one deadline for the whole exchange (as the service's sender). */
export function deliver(
  target: URL,
  headers: Record<string, string>,
  body: string,
  options: DeliveryOptions = {},
): Promise<Delivery> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (delivery: Delivery) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(delivery);
    };
    const secure = target.protocol === 'https:';
    const requestOptions: https.RequestOptions = {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
      ...(secure && options.insecure ? { rejectUnauthorized: false } : {}),
      ...(secure && options.ca ? { ca: [...tls.rootCertificates, options.ca] } : {}),
    };
    const request = (secure ? https : http).request(target, requestOptions);
    const deadline = setTimeout(() => {
      settle({ error: `no answer within ${timeoutMs} ms`, answer: '' });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) =>
      settle({ error: `${error.code ?? 'error'}: ${error.message}`, answer: '' }),
    );
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
        size += chunk.length;
      });
      response.on('error', () => {});
      const done = () =>
        settle({
          status: response.statusCode ?? 0,
          answer: Buffer.concat(chunks).toString('utf8').slice(0, MAX_ANSWER_BYTES),
        });
      response.on('end', done);
      response.on('close', done);
    });
    request.end(body);
  });
}
