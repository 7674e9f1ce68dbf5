import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * THE one configuration loader: command-line flags win over environment variables, which win over
 * defaults. Everything is validated at start; every problem is reported at once with the flag/env name.
 */
export interface ServerConfig {
  port: number;
  host: string;
  /** Directory of the SQLite file (`<dataDir>/platform.sqlite`). */
  dataDir: string;
  /** PostgreSQL connection string; when set, PostgreSQL is used instead of SQLite. */
  databaseUrl: string | undefined;
  /** PostgreSQL schema to use (created when missing); tests use one per file. */
  databaseSchema: string | undefined;
  /** Base URL clients reach this server at; used in Location headers and event callback URLs. */
  publicUrl: string;
  logLevel: string;
  /** Access token lifetime in seconds. */
  tokenTtlSeconds: number;
  /** Event callback (x-chat-bot-token) lifetime in ms. */
  callbackTtlMs: number;
  bodyLimitBytes: number;
  /** Body limit of text/csv dataset imports. */
  csvBodyLimitBytes: number;
  rateLimit: { max: number; windowMs: number };
  /** Create a development instance, admin user and client when the database is empty. */
  bootstrapDevInstance: boolean;
  devInstanceName: string;
  delivery: {
    timeoutMs: number;
    retryScheduleMs: number[];
    pollIntervalMs: number;
    batchSize: number;
    leaseMs: number;
    allowList: string[];
    caCertificates: string | undefined;
    /** How long delivered and failed outbox rows are kept before the sweeper deletes them. */
    retentionMs: number;
  };
  /** Run the webhook dispatcher inside `serve`. */
  deliveryEnabled: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "500ms", "5s", "5m", "2h", "1d" or a bare number of milliseconds. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * DURATION_UNITS[match[2] ?? 'ms']!);
}

/** Parses `--name value`, `--name=value` and bare `--flag` (true) into a map; other words are positionals. */
export function parseFlags(argv: string[]): { flags: Map<string, string | true>; positionals: string[] } {
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0) {
      flags.set(arg.slice(2, eq), arg.slice(eq + 1));
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      flags.set(arg.slice(2), next);
      i++;
    } else {
      flags.set(arg.slice(2), true);
    }
  }
  return { flags, positionals };
}

/** Known flags of `serve` and the environment variable each one mirrors. */
export const CONFIG_OPTIONS = {
  port: { flag: 'port', env: 'PORT', help: 'TCP port (default 3000)' },
  host: { flag: 'host', env: 'HOST', help: 'listen address (default 0.0.0.0)' },
  dataDir: { flag: 'data-dir', env: 'PLATFORM_DATA_DIR', help: 'SQLite data directory (default ./data)' },
  databaseUrl: { flag: 'database-url', env: 'DATABASE_URL', help: 'PostgreSQL URL; SQLite when unset' },
  databaseSchema: {
    flag: 'database-schema',
    env: 'PLATFORM_DATABASE_SCHEMA',
    help: 'PostgreSQL schema (default public)',
  },
  publicUrl: {
    flag: 'public-url',
    env: 'PLATFORM_PUBLIC_URL',
    help: 'public base URL (default http://localhost:<port>)',
  },
  logLevel: {
    flag: 'log-level',
    env: 'LOG_LEVEL',
    help: 'fatal|error|warn|info|debug|trace|silent (default info)',
  },
  tokenTtl: { flag: 'token-ttl', env: 'PLATFORM_TOKEN_TTL', help: 'access token lifetime (default 3599s)' },
  callbackTtl: {
    flag: 'callback-ttl',
    env: 'PLATFORM_CALLBACK_TTL',
    help: 'event callback lifetime (default 1h)',
  },
  bodyLimit: {
    flag: 'body-limit',
    env: 'PLATFORM_BODY_LIMIT',
    help: 'max request body bytes (default 1048576)',
  },
  csvBodyLimit: {
    flag: 'csv-body-limit',
    env: 'PLATFORM_CSV_BODY_LIMIT',
    help: 'max CSV import bytes (default 104857600)',
  },
  rateLimitMax: {
    flag: 'rate-limit',
    env: 'PLATFORM_RATE_LIMIT',
    help: 'requests per window per client/IP (default 1200; 0 = off)',
  },
  rateLimitWindow: {
    flag: 'rate-limit-window',
    env: 'PLATFORM_RATE_LIMIT_WINDOW',
    help: 'rate limit window (default 60s)',
  },
  bootstrap: {
    flag: 'bootstrap',
    env: 'PLATFORM_BOOTSTRAP',
    help: 'create a dev instance + client on an empty DB (default true)',
  },
  devInstance: {
    flag: 'dev-instance',
    env: 'PLATFORM_DEV_INSTANCE',
    help: 'name of the bootstrap instance (default dev)',
  },
  deliveryEnabled: {
    flag: 'delivery',
    env: 'PLATFORM_DELIVERY',
    help: 'run the webhook dispatcher (default true)',
  },
  deliveryTimeout: {
    flag: 'delivery-timeout',
    env: 'PLATFORM_DELIVERY_TIMEOUT',
    help: 'webhook POST timeout (default 10s)',
  },
  retrySchedule: {
    flag: 'retry-schedule',
    env: 'PLATFORM_DELIVERY_RETRY_SCHEDULE',
    help: 'retry delays (default 5s,5m,30m,2h,5h,10h,10h)',
  },
  pollInterval: {
    flag: 'delivery-poll-interval',
    env: 'PLATFORM_DELIVERY_POLL_INTERVAL',
    help: 'outbox poll interval (default 500ms)',
  },
  batchSize: {
    flag: 'delivery-batch-size',
    env: 'PLATFORM_DELIVERY_BATCH_SIZE',
    help: 'rows claimed per poll (default 10)',
  },
  lease: { flag: 'delivery-lease', env: 'PLATFORM_DELIVERY_LEASE', help: 'claim lease (default 60s)' },
  retention: {
    flag: 'delivery-retention',
    env: 'PLATFORM_DELIVERY_RETENTION',
    help: 'how long delivered and failed deliveries are kept (default 7d)',
  },
  allowList: {
    flag: 'webhook-allowlist',
    env: 'PLATFORM_WEBHOOK_ALLOWLIST',
    help: 'non-global hosts/CIDRs allowed as webhook targets',
  },
  caFile: {
    flag: 'webhook-ca-file',
    env: 'PLATFORM_WEBHOOK_CA_FILE',
    help: 'extra trusted CA PEM for webhook targets',
  },
} as const;

type OptionName = keyof typeof CONFIG_OPTIONS;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Builds the configuration from flags and environment. Throws ConfigError listing every problem.
 * `overrides` lets tests and embedders set fields directly after validation.
 */
export function loadConfig(
  flags: Map<string, string | true> = new Map(),
  env: Env = process.env,
  overrides: Partial<ServerConfig> = {},
): ServerConfig {
  const problems: string[] = [];
  const known = new Set(Object.values(CONFIG_OPTIONS).map((o) => o.flag));
  for (const name of flags.keys()) {
    if (!known.has(name as never)) problems.push(`unknown flag --${name}`);
  }

  const raw = (name: OptionName): { value: string; source: string } | undefined => {
    const option = CONFIG_OPTIONS[name];
    const fromFlag = flags.get(option.flag);
    if (fromFlag !== undefined)
      return { value: fromFlag === true ? 'true' : fromFlag, source: `--${option.flag}` };
    const fromEnv = env[option.env];
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, source: option.env };
    return undefined;
  };

  const integer = (name: OptionName, fallback: number, min: number, max: number): number => {
    const given = raw(name);
    if (!given) return fallback;
    const n = Number(given.value);
    if (!/^\d+$/.test(given.value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      problems.push(`${given.source} must be an integer from ${min} to ${max}, got "${given.value}"`);
      return fallback;
    }
    return n;
  };

  const duration = (name: OptionName, fallback: number, min = 1): number => {
    const given = raw(name);
    if (!given) return fallback;
    const ms = parseDuration(given.value);
    if (ms === undefined || ms < min) {
      problems.push(
        `${given.source} must be a duration like 500ms, 10s, 5m, 2h (at least ${min} ms), got "${given.value}"`,
      );
      return fallback;
    }
    return ms;
  };

  const boolean = (name: OptionName, fallback: boolean): boolean => {
    const given = raw(name);
    if (!given) return fallback;
    const v = given.value.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off'].includes(v)) return false;
    problems.push(`${given.source} must be true or false, got "${given.value}"`);
    return fallback;
  };

  const port = integer('port', 3000, 0, 65535);
  const host = raw('host')?.value ?? '0.0.0.0';
  const dataDir = resolve(raw('dataDir')?.value ?? './data');

  const databaseUrlRaw = raw('databaseUrl');
  let databaseUrl: string | undefined;
  if (databaseUrlRaw) {
    try {
      const u = new URL(databaseUrlRaw.value);
      if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new Error('protocol');
      databaseUrl = databaseUrlRaw.value;
    } catch {
      problems.push(`${databaseUrlRaw.source} must be a postgres:// or postgresql:// URL`);
    }
  }
  const schemaRaw = raw('databaseSchema');
  let databaseSchema: string | undefined;
  if (schemaRaw) {
    if (/^[a-z_][a-z0-9_]{0,62}$/.test(schemaRaw.value)) databaseSchema = schemaRaw.value;
    else problems.push(`${schemaRaw.source} must be a lower-case SQL identifier, got "${schemaRaw.value}"`);
  }

  let publicUrl = `http://localhost:${port}`;
  const publicRaw = raw('publicUrl');
  if (publicRaw) {
    try {
      const u = new URL(publicRaw.value);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
      publicUrl = publicRaw.value.replace(/\/+$/, '');
    } catch {
      problems.push(`${publicRaw.source} must be an http(s) URL, got "${publicRaw.value}"`);
    }
  }

  const logLevel = raw('logLevel')?.value ?? 'info';
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`log level must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);

  const tokenTtlSeconds = Math.round(duration('tokenTtl', 3599_000, 1000) / 1000);
  const callbackTtlMs = duration('callbackTtl', 3_600_000, 1000);
  const bodyLimitBytes = integer('bodyLimit', 1_048_576, 1024, 1024 * 1024 * 1024);
  const csvBodyLimitBytes = integer('csvBodyLimit', 100 * 1_048_576, 1024, 1024 * 1024 * 1024);
  const rateLimitMax = integer('rateLimitMax', 1200, 0, 1_000_000_000);
  const rateLimitWindowMs = duration('rateLimitWindow', 60_000, 1000);

  const retryRaw = raw('retrySchedule');
  let retryScheduleMs = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
  if (retryRaw) {
    const parts = retryRaw.value.split(',').map((p) => parseDuration(p));
    if (parts.length === 0 || parts.some((p) => p === undefined)) {
      problems.push(
        `${retryRaw.source} must be a comma-separated list of durations like 5s,5m,30m, got "${retryRaw.value}"`,
      );
    } else {
      retryScheduleMs = parts as number[];
    }
  }

  const allowRaw = raw('allowList');
  const allowList = allowRaw
    ? allowRaw.value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];

  let caCertificates: string | undefined;
  const caRaw = raw('caFile');
  if (caRaw) {
    try {
      caCertificates = readFileSync(caRaw.value, 'utf8');
      if (!caCertificates.includes('-----BEGIN CERTIFICATE-----')) {
        problems.push(`${caRaw.source}: ${caRaw.value} holds no PEM certificate`);
      }
    } catch (error) {
      problems.push(`${caRaw.source}: cannot read ${caRaw.value} (${(error as Error).message})`);
    }
  }

  const devInstanceName = raw('devInstance')?.value ?? 'dev';
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(devInstanceName)) {
    problems.push(
      `dev instance name must be lower-case letters, digits and dashes, got "${devInstanceName}"`,
    );
  }

  const config: ServerConfig = {
    port,
    host,
    dataDir,
    databaseUrl,
    databaseSchema,
    publicUrl,
    logLevel,
    tokenTtlSeconds,
    callbackTtlMs,
    bodyLimitBytes,
    csvBodyLimitBytes,
    rateLimit: { max: rateLimitMax, windowMs: rateLimitWindowMs },
    bootstrapDevInstance: boolean('bootstrap', true),
    devInstanceName,
    deliveryEnabled: boolean('deliveryEnabled', true),
    delivery: {
      timeoutMs: duration('deliveryTimeout', 10_000),
      retryScheduleMs,
      pollIntervalMs: duration('pollInterval', 500),
      batchSize: integer('batchSize', 10, 1, 1000),
      leaseMs: duration('lease', 60_000, 1000),
      allowList,
      caCertificates,
      retentionMs: duration('retention', 7 * 86_400_000, 1000),
    },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return { ...config, ...overrides };
}
