import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ConfigError, loadConfig, parseFlags, type ServerConfig } from '../src/config.js';

/** The problems loadConfig reports for these flags and variables (none: it returned). */
function problemsOf(argv: string[], env: Record<string, string> = {}): string[] {
  try {
    loadConfig(parseFlags(argv).flags, env);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig(new Map(), {});
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      publicUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      databaseSchema: undefined,
      docsUrl: undefined,
      logLevel: 'info',
      logFormat: 'json',
      tokenTtlSeconds: 3599,
      callbackTtlMs: 3_600_000,
      bodyLimitBytes: 1_048_576,
      csvBodyLimitBytes: 104_857_600,
      rateLimit: { max: 1200, windowMs: 60_000 },
      bootstrapDevInstance: true,
      devInstanceName: 'dev',
      deliveryEnabled: true,
      delivery: {
        timeoutMs: 10_000,
        retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
        pollIntervalMs: 500,
        batchSize: 32,
        concurrency: 64,
        leaseMs: 60_000,
        allowList: [],
        caCertificates: undefined,
        retentionMs: 604_800_000,
      },
    });
    expect(config.dataDir).toMatch(/data$/);
  });

  it('reads environment variables and lets flags win', () => {
    const { flags } = parseFlags(['--port', '4000', '--public-url=https://api.acme.example/']);
    const config = loadConfig(flags, {
      PORT: '5000',
      DATABASE_URL: 'postgres://u@db:5432/platform',
      PLATFORM_DELIVERY_RETRY_SCHEDULE: '1s,2m,3h',
      PLATFORM_WEBHOOK_ALLOWLIST: '127.0.0.1/32, ::1',
      PLATFORM_DOCS_URL: 'https://docs.acme.example',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'pretty',
      PLATFORM_DELIVERY: 'off',
    });
    expect(config.port).toBe(4000);
    expect(config.publicUrl).toBe('https://api.acme.example');
    expect(config.databaseUrl).toBe('postgres://u@db:5432/platform');
    expect(config.docsUrl).toBe('https://docs.acme.example/');
    expect(config.delivery.retryScheduleMs).toEqual([1000, 120_000, 10_800_000]);
    expect(config.delivery.allowList).toEqual(['127.0.0.1/32', '::1']);
    expect(config.logLevel).toBe('debug');
    expect(config.logFormat).toBe('pretty');
    expect(config.deliveryEnabled).toBe(false);
  });

  it('derives the public URL from the port unless it is given', () => {
    expect(loadConfig(parseFlags(['--port', '4321']).flags, {}).publicUrl).toBe('http://localhost:4321');
    // A bad port is one problem, not also a bad public URL made from it.
    expect(problemsOf(['--port', 'eighty'])).toHaveLength(1);
  });

  it('reports every problem at once with the flag or variable name', () => {
    const problems = problemsOf(['--port', 'eighty', '--colour', 'blue'], {
      DATABASE_URL: 'mysql://x',
      PLATFORM_DELIVERY_RETRY_SCHEDULE: '5s,soon',
      LOG_LEVEL: 'loud',
      PLATFORM_WEBHOOK_CA_FILE: '/nope.pem',
    });
    expect(problems).toEqual([
      'unknown flag --colour',
      '--port must be an integer from 0 to 65535, got "eighty"',
      'DATABASE_URL (--database-url) must be a URL starting postgres:// or postgresql://',
      'LOG_LEVEL (--log-level) must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      'PLATFORM_DELIVERY_RETRY_SCHEDULE (--retry-schedule) must be a comma-separated list of durations like 5s,5m,30m, got "5s,soon"',
      expect.stringMatching(
        /^PLATFORM_WEBHOOK_CA_FILE \(--webhook-ca-file\) must be a readable file of PEM certificates, got "\/nope.pem" \(ENOENT.*\)$/,
      ),
    ]);
  });

  it('names what is allowed for each kind of value', () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-config-'));
    const notPem = join(dir, 'ca.txt');
    writeFileSync(notPem, 'hello');
    try {
      expect(
        problemsOf([
          '--token-ttl=10ms',
          '--bootstrap=maybe',
          '--public-url=ftp://files.example',
          '--dev-instance=Dev',
          '--webhook-ca-file',
          notPem,
        ]),
      ).toEqual([
        '--public-url must be a URL starting http:// or https://, got "ftp://files.example"',
        '--token-ttl must be a duration like 500ms, 10s, 5m, 2h (at least 1000 ms), got "10ms"',
        '--bootstrap must be true or false, got "maybe"',
        '--dev-instance must be lower-case letters, digits and dashes, got "Dev"',
        `--webhook-ca-file must be a readable file of PEM certificates, got "${notPem}" (it holds no PEM certificate)`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never repeats a database URL, which holds a password', () => {
    expect(problemsOf([], { DATABASE_URL: 'mysql://root:hunter2@db' }).join('\n')).not.toContain('hunter2');
  });

  it('keeps the type every module reads', () => {
    // Today's fields and their types: other modules read them, so the declaration must keep them.
    interface FieldsReadElsewhere {
      port: number;
      host: string;
      dataDir: string;
      databaseUrl: string | undefined;
      databaseSchema: string | undefined;
      publicUrl: string;
      docsUrl: string | undefined;
      logLevel: string;
      logFormat: 'json' | 'pretty';
      tokenTtlSeconds: number;
      callbackTtlMs: number;
      bodyLimitBytes: number;
      csvBodyLimitBytes: number;
      rateLimit: { max: number; windowMs: number };
      bootstrapDevInstance: boolean;
      devInstanceName: string;
      delivery: {
        timeoutMs: number;
        retryScheduleMs: number[];
        pollIntervalMs: number;
        batchSize: number;
        concurrency: number;
        perSubscription: number;
        perHost: number;
        breakerThreshold: number;
        breakerCooldownMs: number;
        leaseMs: number;
        allowList: string[];
        caCertificates: string | undefined;
        retentionMs: number;
      };
      deliveryEnabled: boolean;
    }
    expectTypeOf<Pick<ServerConfig, keyof FieldsReadElsewhere>>().toEqualTypeOf<FieldsReadElsewhere>();
  });

  it('parses flags with parseArgs: --name value, --name=value, a bare --flag', () => {
    const { flags, positionals } = parseFlags(['serve', '--port', '1', '--host=::1', '--delivery']);
    expect(Object.fromEntries(flags)).toEqual({ port: '1', host: '::1', delivery: true });
    expect(positionals).toEqual(['serve']);
  });
});
