import type { FastifyRequest } from 'fastify';
import pino, { type Logger } from 'pino';

/*
 * The server's logger: pino, with every place a credential can travel redacted — headers, fields named like
 * secrets, and query parameters named like secrets (a client may put an access token in the URL even though
 * the API never reads it from there; the request line is logged all the same).
 */

/** Fields named like secrets: redacted at the top of a log line's object and one level down. */
const SECRET_FIELDS = [
  'clientSecret',
  'client_secret',
  'access_token',
  'signingSecret',
  'secret',
  'password',
];

/** Headers and fields that must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-chat-bot-token"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
];

const SECRET_QUERY_NAMES =
  /^(access_token|refresh_token|id_token|token|client_secret|secret|password|api_?key|x-chat-bot-token)$/i;

/** The URL with the values of secret-looking query parameters replaced. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // a malformed name is kept as sent
      }
      return eq >= 0 && SECRET_QUERY_NAMES.test(name) ? `${rawName}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

/** Fastify's own request serializer, with the URL redacted; other objects logged as `req` pass as they are. */
function serializeRequest(request: FastifyRequest) {
  if (!request || typeof request !== 'object' || !('raw' in request)) return request;
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { req: serializeRequest },
  };
  return destination ? pino(options, destination) : pino(options);
}

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};

/**
 * Development output (`--log-format pretty`): one short line per event, and one per request —
 * `GET /v1/users?limit=5 → 200 (3 ms)` — instead of Fastify's pair of JSON lines. It formats the lines
 * pino has already redacted, so nothing secret gets through that the JSON format would hide.
 */
export function prettyDestination(out: NodeJS.WritableStream): pino.DestinationStream {
  /** reqId → request line, from "incoming request" until "request completed". */
  const inFlight = new Map<string, string>();
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line);
      } catch {
        out.write(line);
        return;
      }
      const { level, time, msg, reqId, req, res, responseTime, err, pid, hostname, ...rest } = entry as {
        [key: string]: unknown;
        req?: { method?: string; url?: string };
        res?: { statusCode?: number };
        err?: { stack?: string; message?: string };
      };
      const id = String(reqId);
      if (req && reqId !== undefined) {
        // Requests abandoned before completion must not pile up.
        if (inFlight.size > 10_000) inFlight.clear();
        inFlight.set(id, `${req.method} ${req.url}`);
        return;
      }
      let text = String(msg ?? '');
      if (res && reqId !== undefined) {
        text = `${inFlight.get(id) ?? '(request)'} → ${res.statusCode} (${Math.round(Number(responseTime))} ms)`;
        inFlight.delete(id);
      }
      const clock = new Date(Number(time)).toTimeString().slice(0, 8);
      const fields = Object.entries(rest)
        .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join(' ');
      const stack = err ? `\n${err.stack ?? err.message ?? ''}` : '';
      out.write(
        `${clock} ${LEVEL_NAMES[Number(level)] ?? level} ${text}${fields ? ` ${fields}` : ''}${stack}\n`,
      );
    },
  };
}

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type ChildOf = (this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => Logger;

/**
 * A request's logger, made when something is first logged at a level that is on. Fastify gives every
 * request a child logger, and pino builds one by running its `reqId` binding through the redaction — a
 * clone and a JSON text per request. Most requests never log beyond what the level lets through (health
 * checks have no request lines; `LOG_LEVEL=warn` silences the rest): they now never make one. What is
 * logged is the same, bindings included.
 */
class DeferredChildLogger {
  readonly #parent: Logger;
  readonly #bindings: pino.Bindings;
  readonly #childOf: ChildOf;
  #made: Logger | undefined;

  constructor(parent: Logger, bindings: pino.Bindings, childOf: ChildOf) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#childOf = childOf;
  }

  #child(): Logger {
    this.#made ??= this.#childOf.call(this.#parent, this.#bindings);
    return this.#made;
  }

  #log(method: LogMethod, args: unknown[]): void {
    // Before the child exists its level is its parent's: a call the level turns off changes nothing.
    if (this.#made === undefined && !this.#parent.isLevelEnabled(method)) return;
    (this.#child()[method] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return this.#made?.level ?? this.#parent.level;
  }
  set level(level: string) {
    this.#child().level = level;
  }
  fatal(...args: unknown[]) {
    this.#log('fatal', args);
  }
  error(...args: unknown[]) {
    this.#log('error', args);
  }
  warn(...args: unknown[]) {
    this.#log('warn', args);
  }
  info(...args: unknown[]) {
    this.#log('info', args);
  }
  debug(...args: unknown[]) {
    this.#log('debug', args);
  }
  trace(...args: unknown[]) {
    this.#log('trace', args);
  }
  silent() {}
  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions) {
    return this.#child().child(bindings, options);
  }
}

/**
 * The logger to give Fastify: `logger`, whose children are deferred (DeferredChildLogger) unless they are
 * given options of their own (a level, serializers…: made at once). Done on `child` itself rather than
 * with Fastify's `childLoggerFactory`: Fastify checks every logger such a factory returns, which cost
 * more than the deferral saves.
 */
export function withDeferredChildren(logger: Logger): Logger {
  const childOf = logger.child as unknown as ChildOf;
  const deferring = Object.create(logger) as Logger;
  deferring.child = function (this: Logger, bindings: pino.Bindings, options?: pino.ChildLoggerOptions) {
    if (options) for (const _ in options) return childOf.call(this, bindings, options);
    return new DeferredChildLogger(this, bindings, childOf) as unknown as Logger;
  } as unknown as Logger['child'];
  return deferring;
}
