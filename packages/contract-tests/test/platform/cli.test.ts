// `contract-tests platform` against a live reference server passes and writes its reports; against a
// wrong secret or a port where nothing listens it fails, naming the cause once.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/index.js';
import { type ReferenceServer, startReferenceServer } from './support/reference-server.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'contract-tests.mjs');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 300_000 });

describe('contract-tests platform (the CLI)', () => {
  let server: ReferenceServer;
  let credentials: { clientId: string; clientSecret: string };
  let other: { clientId: string; clientSecret: string };
  const reports = mkdtempSync(join(tmpdir(), 'contract-cli-'));

  beforeAll(async () => {
    server = await startReferenceServer('sqlite', { PLATFORM_RATE_LIMIT: '0' });
    credentials = await server.createClient('cli-target', ['user', 'data', 'chat']);
    other = await server.createClient('cli-other', ['user', 'data', 'chat']);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    rmSync(reports, { recursive: true, force: true });
  });

  it('passes against the reference server and writes JUnit and HTML', () => {
    const junit = join(reports, 'run.xml');
    const html = join(reports, 'run.html');
    const result = run(
      'platform',
      '--base-url',
      server.url,
      '--client-id',
      credentials.clientId,
      '--client-secret',
      credentials.clientSecret,
      '--other-client-id',
      other.clientId,
      '--other-client-secret',
      other.clientSecret,
      '--max-examples',
      '10',
      '--seed',
      '7',
      '--junit',
      junit,
      '--html',
      html,
    );
    expect(result.status, result.stdout.slice(-4000) + result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toContain('seed 7');
    // The reference server serves the internal operations: the default run checks them.
    expect(result.stdout).toContain('internal operations: served, checked');
    expect(result.stdout).toMatch(/\d+ passed, 0 failed/);
    expect(readFileSync(junit, 'utf8')).toMatch(/<testsuites [^>]*failures="0"/);
    expect(readFileSync(html, 'utf8')).toContain('Status matrix');
  }, 300_000);

  it('reports a wrong secret once, as the cause of a stopped run (exit 3)', () => {
    const result = run(
      'platform',
      '--base-url',
      server.url,
      '--client-id',
      credentials.clientId,
      '--client-secret',
      'wrong',
    );
    expect(result.status).toBe(3);
    // The header once, no phases that did not run, the cause last.
    expect(result.stdout.match(/^contract-tests platform against /gm)).toHaveLength(1);
    expect(result.stdout).not.toMatch(/^phases:/m);
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(
      /^STOPPED: no access token .*401.*invalid_client/,
    );
    expect(result.stdout).not.toMatch(/^\d+\) /m);
  }, 60_000);

  it('takes a secret that starts with a dash as the value of --client-secret', () => {
    // base64url secrets start with "-" one time in 64: `--client-secret "$SECRET"` must still work.
    const result = run(
      'platform',
      '--base-url',
      server.url,
      '--client-id',
      credentials.clientId,
      '--client-secret',
      `-${credentials.clientSecret}`,
    );
    expect(result.stderr).not.toContain('ambiguous');
    expect(result.status).toBe(3);
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^STOPPED: no access token .*invalid_client/);
  }, 60_000);

  it('reports a server that does not answer', async () => {
    const result = run(
      'platform',
      '--base-url',
      `http://127.0.0.1:${await freePort()}`,
      '--client-id',
      'a',
      '--client-secret',
      'b',
    );
    expect(result.status).toBe(3);
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^STOPPED: .*does not answer/);
  }, 60_000);

  it('explains its usage when arguments are missing or unknown', () => {
    const missing = run('platform', '--base-url', server.url);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('Missing --client-id, --client-secret');
    const unknownCheck = run(
      'platform',
      '--base-url',
      'x',
      '--client-id',
      'a',
      '--client-secret',
      'b',
      '--checks',
      'nope',
    );
    expect(unknownCheck.status).toBe(2);
    expect(unknownCheck.stderr).toContain('--checks must be checks separated by commas');
    for (const profile of ['nope', 'toString']) {
      const unknownProfile = run(
        'platform',
        '--base-url',
        'x',
        '--client-id',
        'a',
        '--client-secret',
        'b',
        '--profile',
        profile,
      );
      expect(unknownProfile.status).toBe(2);
      expect(unknownProfile.stderr).toContain(`--profile must be one of stateless, got "${profile}"`);
    }
    const base = ['platform', '--base-url', 'x', '--client-id', 'a', '--client-secret', 'b'];
    const foreign = run(...base, '--app-password', 'p');
    expect(foreign.status).toBe(2);
    expect(foreign.stderr).toContain('Not an option of platform: --app-password');
    for (const [flag, value, message] of [
      ['--rate-limit', '10', '--rate-limit must be N requests per s, m or h'],
      ['--rate-limit', '0/s', '--rate-limit must be N requests per s, m or h'],
      ['--max-response-time', '0', '--max-response-time must be a number of seconds above 0'],
    ] as const) {
      const wrong = run(...base, flag, value);
      expect(wrong.status, `${flag} ${value}`).toBe(2);
      expect(wrong.stderr).toContain(message);
    }
    expect(existsSync(bin)).toBe(true);
  });

  it('paces itself to --rate-limit and holds answers to --max-response-time', () => {
    // Two transport probes of one operation at 20 requests a second; a budget no local answer misses.
    const result = run(
      'platform',
      '--base-url',
      server.url,
      '--client-id',
      credentials.clientId,
      '--client-secret',
      credentials.clientSecret,
      '--phases',
      'examples',
      '--rate-limit',
      '20/s',
      '--max-response-time',
      '30',
    );
    expect(result.status, result.stdout.slice(-3000)).toBe(0);
    const requests = Number(/^(\d+) requests in ([\d.]+) s/m.exec(result.stdout)?.[1]);
    const seconds = Number(/^\d+ requests in ([\d.]+) s/m.exec(result.stdout)?.[1]);
    expect(requests).toBeGreaterThan(20);
    // At most 20 a second after the first: a lower bound on the time taken, never an upper one.
    expect(seconds).toBeGreaterThanOrEqual((requests - 1) / 20 - 0.1);
    expect(result.stdout).not.toContain('target throttled');
  }, 300_000);
});
