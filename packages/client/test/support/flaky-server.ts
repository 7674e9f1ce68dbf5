// A real HTTP server on a loopback port that fails on purpose, as scripted per request: an answer with
// any status and headers, a connection reset, or no answer at all. The clients under test reach it over
// TCP with the real fetch; nothing is stubbed.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Behaviour =
  /** Reset the connection (TCP RST) without answering. */
  | 'reset'
  /** Read the request and never answer. */
  | 'hang'
  | { status: number; headers?: Record<string, string>; json?: unknown };

export interface FlakyServer {
  url: string;
  /** Every request that reached the server, in order. */
  requests: SeenRequest[];
  /** Requests to `path` (the token endpoint's left out by filtering on it). */
  requestsTo(path: string): SeenRequest[];
  close(): Promise<void>;
}

export const token = (n = 1): Behaviour => ({
  status: 200,
  headers: { 'Cache-Control': 'no-store' },
  json: { access_token: `token-${n}`, expires_in: 3599, token_type: 'bearer', scope: 'user' },
});

/**
 * Starts the server; `script` decides each request's fate from the request and how many requests to the
 * same path came before it (0 for the first).
 */
export async function startFlakyServer(
  script: (request: SeenRequest, previousToPath: number) => Behaviour,
): Promise<FlakyServer> {
  const requests: SeenRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const seen: SeenRequest = {
      method: req.method ?? '',
      path: new URL(req.url ?? '/', 'http://x').pathname,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    const previous = requests.filter((r) => r.path === seen.path).length;
    requests.push(seen);
    const behaviour = script(seen, previous);
    if (behaviour === 'hang') return;
    if (behaviour === 'reset') {
      req.socket.resetAndDestroy();
      return;
    }
    const body = behaviour.json === undefined ? '' : JSON.stringify(behaviour.json);
    res.writeHead(behaviour.status, {
      ...(body ? { 'Content-Type': 'application/json' } : {}),
      ...behaviour.headers,
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestsTo: (path) => requests.filter((r) => r.path === path),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
