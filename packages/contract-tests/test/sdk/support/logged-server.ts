// The reference server (apps/server) as a black box (../../platform/support/reference-server.ts), with its
// request log read back: every request it received and what it answered, from its own log lines
// (`incoming request` / `request completed`, joined by reqId). That is how the SDK test counts token
// requests on the server's side.
import {
  type DatabaseKind,
  type ReferenceServerOptions,
  startReferenceServer,
} from '../../platform/support/reference-server.js';

/** A request a service logged: what was asked and what it answered (undefined: not answered yet). */
export interface LoggedRequest {
  method: string;
  /** As logged: path and query (the server redacts secret-looking query values). */
  url: string;
  status: number | undefined;
}

export interface LoggedServer {
  url: string;
  /** `host:port`. */
  host: string;
  credentials: { clientId: string; clientSecret: string };
  /** Every request the server logged since it started, in arrival order. */
  requests(): LoggedRequest[];
  close(): Promise<void>;
}

/** `tls`: serve HTTPS with that certificate (an SDK that speaks only HTTPS); the URL is then https://. */
export async function startLoggedServer(
  database: DatabaseKind,
  tls?: ReferenceServerOptions['tls'],
): Promise<LoggedServer> {
  const requests = new Map<string, LoggedRequest>();
  const readLogLine = (line: string) => {
    if (!line.startsWith('{')) return;
    const entry = JSON.parse(line) as {
      msg?: string;
      reqId?: string;
      req?: { method: string; url: string };
      res?: { statusCode: number };
    };
    if (!entry.reqId) return;
    if (entry.msg === 'incoming request' && entry.req) {
      requests.set(entry.reqId, {
        method: entry.req.method,
        url: entry.req.url,
        status: undefined,
      });
    } else if (entry.msg === 'request completed' && entry.res) {
      const request = requests.get(entry.reqId);
      if (request) request.status = entry.res.statusCode;
    }
  };
  const server = await startReferenceServer(
    database,
    { LOG_LEVEL: 'info', PLATFORM_DELIVERY: 'false' },
    { onOutput: readLogLine, tls },
  );
  try {
    const credentials = await server.createClient('sdk', ['user', 'data']);
    return {
      url: server.url,
      host: new URL(server.url).host,
      credentials,
      requests: () => [...requests.values()],
      close: server.close,
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}
