// A real HTTPS receiver for the events a server sends, checked against the spec's `webhooks`:
// every delivery must match exactly one documented webhook (its headers and its body schema).
// No contract-testing tool does this; servers that send webhooks need it most.
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { isJsonMediaType, type Operation, type Problem, type SpecValidator } from '@platform-api/validator';

export interface ReceivedWebhook {
  path: string;
  headers: Headers;
  body: string;
  json: unknown;
  /** The webhook the delivery matched, when exactly one matched. */
  webhook: Operation | undefined;
  problems: Problem[];
}

export interface WebhookReceiver {
  /** Base URL, e.g. https://127.0.0.1:43123 — subscribe `${url}/any/path`. */
  url: string;
  received: ReceivedWebhook[];
  /** Waits until a delivery satisfies the predicate (default a minute). */
  waitFor(predicate: (delivery: ReceivedWebhook) => boolean, timeoutMs?: number): Promise<ReceivedWebhook>;
  close(): Promise<void>;
}

export interface WebhookReceiverOptions {
  validator: SpecValidator;
  tls: { key: string; cert: string };
  /** The address to listen on and to put in the URL (default 127.0.0.1), and the port (default any). */
  host?: string;
  port?: number;
  /** The status to answer a delivery with (default 204). */
  respond?: (delivery: ReceivedWebhook) => number;
}

export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const webhooks = options.validator.operations.filter((operation) => operation.kind === 'webhook');
  const received: ReceivedWebhook[] = [];
  const waiters = new Set<() => void>();

  const server: Server = createServer(
    { key: options.tls.key, cert: options.tls.cert },
    (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(request.headers)) {
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        if (isJsonMediaType(headers.get('content-type') ?? '')) {
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
        }
        const delivery: ReceivedWebhook = {
          path: request.url ?? '/',
          headers,
          body,
          json,
          webhook: undefined,
          problems: [],
        };
        const verdicts = webhooks.map((webhook) => ({
          webhook,
          problems: options.validator.validateRequest(webhook, { headers, body }),
        }));
        const matching = verdicts.filter((verdict) => verdict.problems.length === 0);
        if (matching.length === 1) {
          delivery.webhook = matching[0]?.webhook;
        } else if (matching.length === 0) {
          // Report against the closest webhook: the one with the fewest problems.
          verdicts.sort((a, b) => a.problems.length - b.problems.length);
          delivery.problems = verdicts[0]?.problems ?? [
            { check: 'request_body_conformance', message: 'no webhooks in the spec' },
          ];
        } else {
          delivery.problems = [
            {
              check: 'request_body_conformance',
              message: `matches several webhooks: ${matching.map((m) => m.webhook.path).join(', ')}`,
            },
          ];
        }
        received.push(delivery);
        for (const wake of waiters) wake();
        response.writeHead(options.respond?.(delivery) ?? 204).end();
      });
    },
  );
  // Every socket, from its first byte: closeAllConnections knows only those past the TLS handshake, and
  // close would wait for one a server opened just before (until that server gives up on it).
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    received,
    waitFor(predicate, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = received.find(predicate);
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`no matching webhook delivery within ${timeoutMs} ms (received ${received.length})`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
