import { createSecureContext } from 'node:tls';
import {
  boolean,
  type CommandFlags,
  ConfigError,
  type ConfigOf,
  duration,
  type Flags,
  integer,
  list,
  matching,
  type OptionRules,
  oneOf,
  option,
  parseCommandLine,
  path,
  pemCertificates,
  pemPrivateKey,
  readOptions,
  text,
  url,
} from '@platform-api/cli-options';

/*
 * THE one configuration of the server: command-line flags win over environment variables, which win over
 * defaults. Each option is declared once below; `ServerConfig`, `loadConfig`, `platform-server help` and
 * the README's table (checked by test/config-docs.test.ts) all follow the declaration.
 */

export { ConfigError };

// Declared apart because the public URL's default is computed from it.
const port = option({
  flag: 'port',
  env: 'PORT',
  parser: integer(0, 65535),
  default: '3000',
  help: 'TCP port',
});

// Declared apart because the public URL's scheme follows it.
const tlsCert = option({
  flag: 'tls-cert',
  env: 'PLATFORM_TLS_CERT',
  parser: pemCertificates(),
  help: 'certificate chain (PEM file): serve HTTPS instead of HTTP; needs --tls-key',
});

/** Paths are appended to it, so it keeps no trailing slash. */
const withoutTrailingSlashes = (base: string) => base.replace(/\/+$/, '');

export const SERVER_OPTIONS = {
  port,
  host: option({ flag: 'host', env: 'HOST', parser: text(), default: '0.0.0.0', help: 'listen address' }),
  /** HTTPS when both are set (the files' text); plain HTTP when neither is. */
  tls: {
    cert: tlsCert,
    key: option({
      flag: 'tls-key',
      env: 'PLATFORM_TLS_KEY',
      parser: pemPrivateKey(),
      help: "the certificate's private key (PEM file, unencrypted); needs --tls-cert",
    }),
  },
  /** Directory of the SQLite file (`<dataDir>/platform.sqlite`). */
  dataDir: option({
    flag: 'data-dir',
    env: 'PLATFORM_DATA_DIR',
    parser: path(),
    default: './data',
    help: 'SQLite data directory: platform.sqlite and its WAL',
  }),
  /** PostgreSQL connection string; when set, PostgreSQL is used instead of SQLite. */
  databaseUrl: option({
    flag: 'database-url',
    env: 'DATABASE_URL',
    parser: url(['postgres:', 'postgresql:']),
    secret: true,
    help: 'PostgreSQL URL; SQLite when unset',
  }),
  /** PostgreSQL schema to use (created when missing); tests use one per file. */
  databaseSchema: option({
    flag: 'database-schema',
    env: 'PLATFORM_DATABASE_SCHEMA',
    parser: matching(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL identifier'),
    help: 'PostgreSQL schema (search_path), created if missing; public when unset',
  }),
  /** Base URL clients reach this server at; used in Location headers and event callback URLs. */
  publicUrl: option({
    flag: 'public-url',
    env: 'PLATFORM_PUBLIC_URL',
    parser: url(['http:', 'https:']).map(withoutTrailingSlashes),
    default: {
      shown: 'http(s)://localhost:<port>',
      from: (value) => `${value(tlsCert) === undefined ? 'http' : 'https'}://localhost:${value(port)}`,
    },
    help: 'public base URL: token issuer, base of event callback URLs',
  }),
  /** Where the API's reference documentation is hosted, for the root's links; none when unset. */
  docsUrl: option({
    flag: 'docs-url',
    env: 'PLATFORM_DOCS_URL',
    parser: url(['http:', 'https:']).map((docs) => new URL(docs).href),
    help: "the reference docs' URL, linked from GET /",
  }),
  /** Browser pages (the docs' try-it console) that may call the API from another origin (CORS). */
  corsOrigins: option({
    flag: 'cors-origins',
    env: 'PLATFORM_CORS_ORIGINS',
    parser: list(
      url(['http:', 'https:']).map((given) => new URL(given).origin),
      'a comma-separated list of origins (http://localhost:4000)',
    ),
    default: 'http://localhost:4000,http://127.0.0.1:4000',
    help: "origins whose pages may call the API from a browser: the docs' try-it console (npm start serves it on :4000)",
  }),
  logLevel: option({
    flag: 'log-level',
    env: 'LOG_LEVEL',
    // pino's levels; typed `string` as the field always was (embedders pass their own).
    parser: oneOf<string>(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    help: 'log level',
  }),
  /** `json` (one JSON object per line, for log collectors) or `pretty` (short lines, for development). */
  logFormat: option({
    flag: 'log-format',
    env: 'LOG_FORMAT',
    parser: oneOf(['json', 'pretty']),
    default: 'json',
    help: 'one JSON object per line, or short lines for a console as npm start uses',
  }),
  /** Access token lifetime in seconds. */
  tokenTtlSeconds: option({
    flag: 'token-ttl',
    env: 'PLATFORM_TOKEN_TTL',
    parser: duration(1000).map((ms) => Math.round(ms / 1000)),
    default: '3599s',
    help: 'access token lifetime',
  }),
  /** Event callback (x-chat-bot-token) lifetime in ms. */
  callbackTtlMs: option({
    flag: 'callback-ttl',
    env: 'PLATFORM_CALLBACK_TTL',
    parser: duration(1000),
    default: '1h',
    help: 'event callback lifetime',
  }),
  bodyLimitBytes: option({
    flag: 'body-limit',
    env: 'PLATFORM_BODY_LIMIT',
    parser: integer(1024, 1024 * 1024 * 1024),
    default: '1048576',
    help: 'max JSON and form body bytes; 413 beyond',
  }),
  /** Body limit of text/csv dataset imports. */
  csvBodyLimitBytes: option({
    flag: 'csv-body-limit',
    env: 'PLATFORM_CSV_BODY_LIMIT',
    parser: integer(1024, 1024 * 1024 * 1024),
    default: '104857600',
    help: 'max dataset CSV import bytes',
  }),
  rateLimit: {
    max: option({
      flag: 'rate-limit',
      env: 'PLATFORM_RATE_LIMIT',
      parser: integer(0, 1_000_000_000),
      default: '1200',
      help: 'requests per window per client, per IP before authentication; 0 = off',
    }),
    windowMs: option({
      flag: 'rate-limit-window',
      env: 'PLATFORM_RATE_LIMIT_WINDOW',
      parser: duration(1000),
      default: '60s',
      help: 'rate limit window',
    }),
  },
  /** Create a development instance, admin user and client when the database is empty. */
  bootstrapDevInstance: option({
    flag: 'bootstrap',
    env: 'PLATFORM_BOOTSTRAP',
    parser: boolean(),
    default: 'true',
    help: 'create a dev instance + client on an empty DB',
  }),
  devInstanceName: option({
    flag: 'dev-instance',
    env: 'PLATFORM_DEV_INSTANCE',
    parser: matching(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lower-case letters, digits and dashes'),
    default: 'dev',
    help: 'name of the bootstrap instance',
  }),
  /** Run the webhook dispatcher inside `serve`. */
  deliveryEnabled: option({
    flag: 'delivery',
    env: 'PLATFORM_DELIVERY',
    parser: boolean(),
    default: 'true',
    help: 'run the webhook dispatcher in this process',
  }),
  delivery: {
    timeoutMs: option({
      flag: 'delivery-timeout',
      env: 'PLATFORM_DELIVERY_TIMEOUT',
      parser: duration(),
      default: '10s',
      help: 'webhook POST timeout',
    }),
    retryScheduleMs: option({
      flag: 'retry-schedule',
      env: 'PLATFORM_DELIVERY_RETRY_SCHEDULE',
      parser: list(duration(), 'a comma-separated list of durations like 5s,5m,30m', 1),
      default: '5s,5m,30m,2h,5h,10h,10h',
      help: 'retry delays',
    }),
    pollIntervalMs: option({
      flag: 'delivery-poll-interval',
      env: 'PLATFORM_DELIVERY_POLL_INTERVAL',
      parser: duration(),
      default: '500ms',
      help: 'outbox poll interval',
    }),
    batchSize: option({
      flag: 'delivery-batch-size',
      env: 'PLATFORM_DELIVERY_BATCH_SIZE',
      parser: integer(1, 1000),
      default: '32',
      help: 'rows claimed per poll',
    }),
    /** Attempts in flight at once, per dispatcher. */
    concurrency: option({
      flag: 'delivery-concurrency',
      env: 'PLATFORM_DELIVERY_CONCURRENCY',
      parser: integer(1, 10_000),
      default: '64',
      help: 'webhook attempts in flight at once',
    }),
    /** Cap on one subscription's attempts in flight, per dispatcher (see docs/delivery.md, isolation). */
    perSubscription: option({
      flag: 'delivery-per-subscription',
      env: 'PLATFORM_DELIVERY_PER_SUBSCRIPTION',
      parser: integer(1, 10_000),
      default: '64',
      help: "a healthy subscription's attempts in flight at most (a failing or slow one: its share of the window)",
    }),
    /** Cap on the attempts in flight to one receiver origin (scheme, host and port), per dispatcher. */
    perHost: option({
      flag: 'delivery-per-host',
      env: 'PLATFORM_DELIVERY_PER_HOST',
      parser: integer(1, 10_000),
      default: '64',
      help: 'attempts in flight to one host:port at most',
    }),
    /** Consecutive failed attempts of a subscription that open its circuit breaker. */
    breakerThreshold: option({
      flag: 'delivery-breaker-threshold',
      env: 'PLATFORM_DELIVERY_BREAKER_THRESHOLD',
      parser: integer(1, 1_000_000),
      default: '5',
      help: "consecutive failed attempts that open a subscription's circuit breaker",
    }),
    /** How long an open breaker holds a subscription's deliveries before one probe may go. */
    breakerCooldownMs: option({
      flag: 'delivery-breaker-cooldown',
      env: 'PLATFORM_DELIVERY_BREAKER_COOLDOWN',
      parser: duration(),
      default: '30s',
      help: 'how long an open breaker holds deliveries before a probe',
    }),
    leaseMs: option({
      flag: 'delivery-lease',
      env: 'PLATFORM_DELIVERY_LEASE',
      parser: duration(1000),
      default: '60s',
      help: 'claim lease',
    }),
    /** How long delivered and failed outbox rows are kept before the sweeper deletes them. */
    retentionMs: option({
      flag: 'delivery-retention',
      env: 'PLATFORM_DELIVERY_RETENTION',
      parser: duration(1000),
      default: '7d',
      help: 'how long delivered and failed deliveries and expired callback tokens are kept',
    }),
    allowList: option({
      flag: 'webhook-allowlist',
      env: 'PLATFORM_WEBHOOK_ALLOWLIST',
      parser: list(text(), 'a comma-separated list of hosts and CIDRs'),
      help: 'non-global hosts/CIDRs allowed as webhook targets (e.g. 127.0.0.1/32,::1)',
    }),
    caCertificates: option({
      flag: 'webhook-ca-file',
      env: 'PLATFORM_WEBHOOK_CA_FILE',
      parser: pemCertificates(),
      help: 'extra CA (PEM file) trusted for webhook targets',
    }),
  },
};

export type ServerConfig = ConfigOf<typeof SERVER_OPTIONS>;

/** The command line's own flags beside the configuration's (`--json`, the clients command's). */
export const COMMAND_FLAGS = {
  json: { type: 'boolean' },
  instance: { type: 'string' },
  scopes: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  'user-id': { type: 'string' },
} as const satisfies CommandFlags;

/** Splits a command line into the configuration's flags, the command's own, the positionals and `--help`. */
export function parseFlags(argv: string[]): { flags: Flags; positionals: string[]; help: boolean } {
  return parseCommandLine(argv, SERVER_OPTIONS, COMMAND_FLAGS);
}

/**
 * Builds the configuration from flags and environment. Throws ConfigError listing every problem.
 * `overrides` lets tests and embedders set fields directly after validation.
 */
export function loadConfig(
  flags: Flags = new Map(),
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<ServerConfig> = {},
): ServerConfig {
  const config = readOptions(SERVER_OPTIONS, flags, env, SERVER_RULES);
  checkTls(config);
  return { ...config, ...overrides };
}

const SERVER_RULES: OptionRules = { together: [[SERVER_OPTIONS.tls.cert, SERVER_OPTIONS.tls.key]] };

/** A key that does not sign for the certificate would only fail at listen time: say so with the others. */
function checkTls({ tls }: ServerConfig): void {
  if (tls.cert === undefined || tls.key === undefined) return;
  try {
    createSecureContext({ cert: tls.cert, key: tls.key });
  } catch (error) {
    throw new ConfigError([
      `--tls-key and --tls-cert must be a private key and its certificate (${(error as Error).message})`,
    ]);
  }
}
