import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, optionsHelp, parseDuration, parseFlags } from '../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig(new Map(), {});
    expect(config).toMatchObject({
      port: 3000,
      publicUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      tokenTtlSeconds: 3599,
      callbackTtlMs: 3_600_000,
      bodyLimitBytes: 1_048_576,
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
      LOG_LEVEL: 'debug',
    });
    expect(config.port).toBe(4000);
    expect(config.publicUrl).toBe('https://api.acme.example');
    expect(config.databaseUrl).toBe('postgres://u@db:5432/platform');
    expect(config.delivery.retryScheduleMs).toEqual([1000, 120_000, 10_800_000]);
    expect(config.delivery.allowList).toEqual(['127.0.0.1/32', '::1']);
    expect(config.logLevel).toBe('debug');
  });

  it('reports every problem at once with the flag or variable name', () => {
    const { flags } = parseFlags(['--port', 'eighty', '--colour', 'blue']);
    try {
      loadConfig(flags, {
        DATABASE_URL: 'mysql://x',
        PLATFORM_DELIVERY_RETRY_SCHEDULE: '5s,soon',
        LOG_LEVEL: 'loud',
        PLATFORM_WEBHOOK_CA_FILE: '/nope.pem',
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const text = (error as ConfigError).message;
      for (const part of [
        '--port',
        '--colour',
        'DATABASE_URL',
        'PLATFORM_DELIVERY_RETRY_SCHEDULE',
        'log level',
        'PLATFORM_WEBHOOK_CA_FILE',
      ]) {
        expect(text).toContain(part);
      }
    }
  });

  it('prints each default once, from the table the loader reads', () => {
    expect(optionsHelp()).toContain('(default 5s,5m,30m,2h,5h,10h,10h)');
    expect(optionsHelp()).toContain('--delivery-retention');
  });

  it('parses flags with parseArgs: --name value, --name=value, a bare --flag', () => {
    const { flags, positionals } = parseFlags(['serve', '--port', '1', '--host=::1', '--delivery']);
    expect(Object.fromEntries(flags)).toEqual({ port: '1', host: '::1', delivery: true });
    expect(positionals).toEqual(['serve']);
  });

  it('parses durations', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('10h')).toBe(36_000_000);
    expect(parseDuration('250')).toBe(250);
    expect(parseDuration('soon')).toBeUndefined();
  });
});
