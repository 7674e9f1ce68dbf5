import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';

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
  /** Where the API's reference documentation is hosted, for the root's links; none when unset. */
  docsUrl: string | undefined;
  logLevel: string;
  /** `json` (one JSON object per line, for log collectors) or `pretty` (short lines, for development). */
  logFormat: 'json' | 'pretty';
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
    /** Attempts in flight at once, per dispatcher. */
    concurrency: number;
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

/** The command line's own flags beside the configuration's (`--json`, `--help`, the clients command's). */
export const COMMAND_FLAGS = {
  json: { type: 'boolean' },
  help: { type: 'boolean' },
  instance: { type: 'string' },
  scopes: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  'user-id': { type: 'string' },
} as const;

/**
 * Splits a command line with node:util's parseArgs: `--name value`, `--name=value`, a bare `--flag`
 * (true). Not strict, so that every unknown flag is reported with the other problems (loadConfig), not
 * just the first one.
 */
export function parseFlags(argv: string[]): { flags: Map<string, string | true>; positionals: string[] } {
  const options: ParseArgsConfig['options'] = { ...COMMAND_FLAGS };
  for (const option of Object.values(CONFIG_OPTIONS)) options[option.flag] = { type: 'string' };
  const { values, positionals } = parseArgs({ args: argv, options, strict: false, allowPositionals: true });
  const flags = new Map<string, string | true>();
  for (const [name, value] of Object.entries(values)) {
    if (value === true || typeof value === 'string') flags.set(name, value);
  }
  return { flags, positionals };
}

interface ConfigOption {
  flag: string;
  env: string;
  /** What it sets. */
  help: string;
  /** The default, written as a user would (parsed by the same rules); none: unset, or as `help` says. */
  default?: string;
}

/** Every setting of `serve`: its flag, the environment variable it mirrors, and its default (the only place). */
export const CONFIG_OPTIONS = {
  port: { flag: 'port', env: 'PORT', help: 'TCP port', default: '3000' },
  host: { flag: 'host', env: 'HOST', help: 'listen address', default: '0.0.0.0' },
  dataDir: { flag: 'data-dir', env: 'PLATFORM_DATA_DIR', help: 'SQLite data directory', default: './data' },
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
  docsUrl: {
    flag: 'docs-url',
    env: 'PLATFORM_DOCS_URL',
    help: "the reference docs' URL, linked from GET /",
  },
  logLevel: {
    flag: 'log-level',
    env: 'LOG_LEVEL',
    help: 'fatal|error|warn|info|debug|trace|silent',
    default: 'info',
  },
  logFormat: { flag: 'log-format', env: 'LOG_FORMAT', help: 'json|pretty', default: 'json' },
  tokenTtl: { flag: 'token-ttl', env: 'PLATFORM_TOKEN_TTL', help: 'access token lifetime', default: '3599s' },
  callbackTtl: {
    flag: 'callback-ttl',
    env: 'PLATFORM_CALLBACK_TTL',
    help: 'event callback lifetime',
    default: '1h',
  },
  bodyLimit: {
    flag: 'body-limit',
    env: 'PLATFORM_BODY_LIMIT',
    help: 'max request body bytes',
    default: '1048576',
  },
  csvBodyLimit: {
    flag: 'csv-body-limit',
    env: 'PLATFORM_CSV_BODY_LIMIT',
    help: 'max CSV import bytes',
    default: '104857600',
  },
  rateLimitMax: {
    flag: 'rate-limit',
    env: 'PLATFORM_RATE_LIMIT',
    help: 'requests per window per client/IP (0 = off)',
    default: '1200',
  },
  rateLimitWindow: {
    flag: 'rate-limit-window',
    env: 'PLATFORM_RATE_LIMIT_WINDOW',
    help: 'rate limit window',
    default: '60s',
  },
  bootstrap: {
    flag: 'bootstrap',
    env: 'PLATFORM_BOOTSTRAP',
    help: 'create a dev instance + client on an empty DB',
    default: 'true',
  },
  devInstance: {
    flag: 'dev-instance',
    env: 'PLATFORM_DEV_INSTANCE',
    help: 'name of the bootstrap instance',
    default: 'dev',
  },
  deliveryEnabled: {
    flag: 'delivery',
    env: 'PLATFORM_DELIVERY',
    help: 'run the webhook dispatcher',
    default: 'true',
  },
  deliveryTimeout: {
    flag: 'delivery-timeout',
    env: 'PLATFORM_DELIVERY_TIMEOUT',
    help: 'webhook POST timeout',
    default: '10s',
  },
  retrySchedule: {
    flag: 'retry-schedule',
    env: 'PLATFORM_DELIVERY_RETRY_SCHEDULE',
    help: 'retry delays',
    default: '5s,5m,30m,2h,5h,10h,10h',
  },
  pollInterval: {
    flag: 'delivery-poll-interval',
    env: 'PLATFORM_DELIVERY_POLL_INTERVAL',
    help: 'outbox poll interval',
    default: '500ms',
  },
  batchSize: {
    flag: 'delivery-batch-size',
    env: 'PLATFORM_DELIVERY_BATCH_SIZE',
    help: 'rows claimed per poll',
    default: '32',
  },
  concurrency: {
    flag: 'delivery-concurrency',
    env: 'PLATFORM_DELIVERY_CONCURRENCY',
    help: 'webhook attempts in flight at once',
    default: '64',
  },
  lease: { flag: 'delivery-lease', env: 'PLATFORM_DELIVERY_LEASE', help: 'claim lease', default: '60s' },
  retention: {
    flag: 'delivery-retention',
    env: 'PLATFORM_DELIVERY_RETENTION',
    help: 'how long delivered and failed deliveries are kept',
    default: '7d',
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
} as const satisfies Record<string, ConfigOption>;

/** One line of `platform-server help` per option. */
export function optionsHelp(): string {
  return Object.values(CONFIG_OPTIONS)
    .map((o: ConfigOption) => {
      const help = o.default === undefined ? o.help : `${o.help} (default ${o.default})`;
      return `  --${o.flag.padEnd(24)} ${o.env.padEnd(34)} ${help}`;
    })
    .join('\n');
}

type OptionName = keyof typeof CONFIG_OPTIONS;
/** The options the table gives a default. */
type DefaultedOption = {
  [K in OptionName]: (typeof CONFIG_OPTIONS)[K] extends { default: string } ? K : never;
}[OptionName];

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
  /** The given value, else the table's default (parsed by the same rules). */
  const setting = (name: DefaultedOption): { value: string; source: string } =>
    raw(name) ?? {
      value: CONFIG_OPTIONS[name].default,
      source: `the default of --${CONFIG_OPTIONS[name].flag}`,
    };

  // On a problem these return a placeholder: loadConfig throws before the configuration is used.
  const integer = (name: DefaultedOption, min: number, max: number): number => {
    const given = setting(name);
    const n = Number(given.value);
    if (!/^\d+$/.test(given.value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      problems.push(`${given.source} must be an integer from ${min} to ${max}, got "${given.value}"`);
      return min;
    }
    return n;
  };

  const duration = (name: DefaultedOption, min = 1): number => {
    const given = setting(name);
    const ms = parseDuration(given.value);
    if (ms === undefined || ms < min) {
      problems.push(
        `${given.source} must be a duration like 500ms, 10s, 5m, 2h (at least ${min} ms), got "${given.value}"`,
      );
      return min;
    }
    return ms;
  };

  const boolean = (name: DefaultedOption): boolean => {
    const given = setting(name);
    const v = given.value.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off'].includes(v)) return false;
    problems.push(`${given.source} must be true or false, got "${given.value}"`);
    return false;
  };

  const port = integer('port', 0, 65535);
  const host = setting('host').value;
  const dataDir = resolve(setting('dataDir').value);

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

  let docsUrl: string | undefined;
  const docsRaw = raw('docsUrl');
  if (docsRaw) {
    try {
      const u = new URL(docsRaw.value);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
      docsUrl = u.href;
    } catch {
      problems.push(`${docsRaw.source} must be an http(s) URL, got "${docsRaw.value}"`);
    }
  }

  const logLevel = setting('logLevel').value;
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`log level must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  const logFormat = setting('logFormat').value;
  if (logFormat !== 'json' && logFormat !== 'pretty')
    problems.push(`log format must be json or pretty, got "${logFormat}"`);

  const tokenTtlSeconds = Math.round(duration('tokenTtl', 1000) / 1000);
  const callbackTtlMs = duration('callbackTtl', 1000);
  const bodyLimitBytes = integer('bodyLimit', 1024, 1024 * 1024 * 1024);
  const csvBodyLimitBytes = integer('csvBodyLimit', 1024, 1024 * 1024 * 1024);
  const rateLimitMax = integer('rateLimitMax', 0, 1_000_000_000);
  const rateLimitWindowMs = duration('rateLimitWindow', 1000);

  const retryRaw = setting('retrySchedule');
  let retryScheduleMs: number[] = [];
  const retryParts = retryRaw.value.split(',').map((p) => parseDuration(p));
  if (retryParts.some((p) => p === undefined)) {
    problems.push(
      `${retryRaw.source} must be a comma-separated list of durations like 5s,5m,30m, got "${retryRaw.value}"`,
    );
  } else {
    retryScheduleMs = retryParts as number[];
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

  const devInstanceName = setting('devInstance').value;
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
    docsUrl,
    logLevel,
    logFormat: logFormat as ServerConfig['logFormat'],
    tokenTtlSeconds,
    callbackTtlMs,
    bodyLimitBytes,
    csvBodyLimitBytes,
    rateLimit: { max: rateLimitMax, windowMs: rateLimitWindowMs },
    bootstrapDevInstance: boolean('bootstrap'),
    devInstanceName,
    deliveryEnabled: boolean('deliveryEnabled'),
    delivery: {
      timeoutMs: duration('deliveryTimeout'),
      retryScheduleMs,
      pollIntervalMs: duration('pollInterval'),
      batchSize: integer('batchSize', 1, 1000),
      concurrency: integer('concurrency', 1, 10_000),
      leaseMs: duration('lease', 1000),
      allowList,
      caCertificates,
      retentionMs: duration('retention', 1000),
    },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return { ...config, ...overrides };
}
