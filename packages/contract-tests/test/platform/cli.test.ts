// `platform-contract-tests` against a live reference server passes, and against a port where nothing
// listens it fails: the command a user points at their own deployment.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/index.js';
import { type ReferenceServer, startReferenceServer } from './support/reference-server.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'platform-contract-tests.mjs');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 180_000 });

describe('platform-contract-tests (the CLI)', () => {
  let server: ReferenceServer;
  let credentials: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    server = await startReferenceServer('sqlite');
    credentials = await server.createClient('cli-target', ['user', 'data', 'chat']);
  }, 120_000);
  afterAll(() => server?.close());

  it('passes against the reference server, internal operations included', () => {
    const result = run(
      '--base-url',
      server.url,
      '--client-id',
      credentials.clientId,
      '--client-secret',
      credentials.clientSecret,
      '--include-internal',
    );
    expect(result.status, result.stdout.slice(-3000) + result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toMatch(/Tests\s+.*\d+ passed/);
  }, 180_000);

  it('fails against a wrong secret and against a port where nothing listens', async () => {
    const wrongSecret = run(
      '--base-url',
      server.url,
      '--client-id',
      credentials.clientId,
      '--client-secret',
      'wrong',
    );
    expect(wrongSecret.status).not.toBe(0);
    const nothing = run(
      '--base-url',
      `http://127.0.0.1:${await freePort()}`,
      '--client-id',
      'a',
      '--client-secret',
      'b',
    );
    expect(nothing.status).not.toBe(0);
  }, 180_000);

  it('explains its usage when arguments are missing', () => {
    const result = run('--base-url', server.url);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Missing --client-id, --client-secret');
  });
});
