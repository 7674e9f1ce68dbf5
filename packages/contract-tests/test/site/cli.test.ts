// `contract-tests site` against each provisioned WordPress passes every phase (generated requests as
// that version knows them, the scenarios, transport) and writes its reports; with a wrong application
// password, and against a port where nothing listens, it fails: the command a user points at their site.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/index.js';
import { reportFiles, testSeed } from '../support/run.js';
import { findWordPressSites, type WordPressSite, wordPressUnavailable } from './support/wordpress.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'contract-tests.mjs');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [bin, 'site', ...args], { encoding: 'utf8', timeout: 540_000 });
const output = (result: ReturnType<typeof run>) => result.stdout.slice(-3000) + result.stderr.slice(-2000);

describe('site-contract-tests (the CLI)', () => {
  it('explains its usage when arguments are missing', () => {
    const result = run('--base-url', 'http://127.0.0.1:1');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Missing --user, --app-password');
  });

  it('stops (exit 3) against a port where nothing listens, naming the cause last', async () => {
    const result = run(
      '--base-url',
      `http://127.0.0.1:${await freePort()}`,
      '--user',
      'a',
      '--app-password',
      'b',
    );
    expect(result.status, output(result)).toBe(3);
    expect(result.stdout.trim().split('\n').at(-1)).toMatch(/^STOPPED: .*does not answer/);
  }, 120_000);
});

const sites = await findWordPressSites();
const available = sites.filter((site): site is WordPressSite => site.available);
const newest = available.at(-1);
const seed = testSeed();

describe('contract-tests site against each WordPress', () => {
  if (!newest) {
    const reasons = sites.map((site) => (site.available ? '' : site.reason)).join('; ');
    wordPressUnavailable(reasons, 'the site-contract-tests CLI');
    return;
  }

  it.each(available.map((site) => [site.name, site] as const))(
    'passes every phase against %s and writes JUnit and HTML',
    (_name, site) => {
      const report = reportFiles(`site-${site.version ?? 'unknown'}`);
      const result = run(
        '--base-url',
        site.url,
        '--user',
        site.user,
        '--app-password',
        site.password,
        ...(site.version ? ['--wp-version', site.version] : []),
        '--max-examples',
        '10',
        '--seed',
        String(seed),
        '--junit',
        report.junit,
        '--html',
        report.html,
        '--matrix-csv',
        report.matrix,
      );
      expect(result.status, output(result)).toBe(0);
      expect(result.stdout).toMatch(/checks × operations: \d+ passed, 0 failed/);
      for (const phase of ['examples', 'coverage', 'fuzz', 'stateful', 'transport'])
        expect(result.stdout).toMatch(new RegExp(`\\b${phase} \\d+ requests`));
      // The scenarios ran in the CLI's process: their requests are the stateful phase's, and counted.
      expect(result.stdout).toMatch(/\bstateful [1-9]\d* requests/);
      const scenarios = /site scenarios against WordPress [\d.]+: (\d+) run \((\d+) passed, 0 failed\)/.exec(
        result.stdout,
      );
      expect(Number(scenarios?.[1]), output(result)).toBeGreaterThan(50);
      console.log(`${site.name}: ${scenarios?.[0]}`);
      // The run's size, for the log: how many generated requests this site answered.
      console.log(`${site.name}: ${/^\d+ requests in .*$/m.exec(result.stdout)?.[0]}`);
      expect(readFileSync(report.junit, 'utf8')).toMatch(/<testsuites [^>]*failures="0"/);
      expect(readFileSync(report.html, 'utf8')).toContain('Status matrix');
      expect(readFileSync(report.matrix, 'utf8')).toMatch(
        /^target,operation,method,path,status,documented,seen\n/,
      );
    },
    600_000,
  );

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
