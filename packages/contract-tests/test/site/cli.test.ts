// `site-contract-tests` against a provisioned WordPress (the newest one found) passes; with a wrong
// application password, and against a port where nothing listens, it fails: the command a user points
// at their own site.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/index.js';
import { findWordPressSites, type WordPressSite, wordPressUnavailable } from './support/wordpress.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'contract-tests.mjs');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [bin, 'site', ...args], { encoding: 'utf8', timeout: 300_000 });
const output = (result: ReturnType<typeof run>) => result.stdout.slice(-3000) + result.stderr.slice(-2000);

describe('site-contract-tests (the CLI)', () => {
  it('explains its usage when arguments are missing', () => {
    const result = run('--base-url', 'http://127.0.0.1:1');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Missing --user, --app-password');
  });

  it('fails against a port where nothing listens', async () => {
    const result = run(
      '--base-url',
      `http://127.0.0.1:${await freePort()}`,
      '--user',
      'a',
      '--app-password',
      'b',
    );
    expect(result.status, output(result)).not.toBe(0);
    expect(result.stderr + result.stdout).toMatch(/does not answer/);
  }, 120_000);
});

const sites = await findWordPressSites();
const newest = sites.filter((site): site is WordPressSite => site.available).at(-1);

describe(`site-contract-tests against ${newest?.name ?? 'WordPress'}`, () => {
  if (!newest) {
    const reasons = sites.map((site) => (site.available ? '' : site.reason)).join('; ');
    wordPressUnavailable(reasons, 'the site-contract-tests CLI');
    return;
  }

  it('passes: the site suite and the drift check', () => {
    const result = run(
      '--base-url',
      newest.url,
      '--user',
      newest.user,
      '--app-password',
      newest.password,
      '--phases',
      'stateful',
    );
    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toMatch(/checks × operations: \d+ passed, 0 failed/);
    expect(result.stdout).toContain('stateful:');
  }, 300_000);

  it('fails with a wrong application password', () => {
    const result = run(
      '--base-url',
      newest.url,
      '--user',
      newest.user,
      '--app-password',
      'wrong0wrong0wrong0wrong0',
      '--phases',
      'stateful',
    );
    expect(result.status, output(result)).not.toBe(0);
  }, 300_000);
});
