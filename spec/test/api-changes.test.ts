// The breaking-change gate (scripts/api-changes.mjs) on fixture copies of the spec: a copy as released,
// and a copy with one edit. Optic judges; these tests check that the gate fails and passes when it should.
import { execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';

const specDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(specDir, '..');
const script = join(specDir, 'scripts', 'api-changes.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'api-changes-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the repository's description sources (what the gate bundles), optionally edited. */
function fixture(
  name: string,
  edit: (file: (path: string, change: (text: string) => string) => void) => void,
) {
  const dir = join(scratch, name);
  cpSync(join(repoRoot, 'redocly.yaml'), join(dir, 'redocly.yaml'));
  for (const part of ['platform', 'site', 'rules', 'scripts', 'samples'])
    cpSync(join(specDir, part), join(dir, 'spec', part), { recursive: true });
  edit((path, change) => {
    const file = join(dir, 'spec', path);
    const before = readFileSync(file, 'utf8');
    const after = change(before);
    if (after === before) throw new Error(`the edit of ${path} changed nothing`);
    writeFileSync(file, after);
  });
  return dir;
}

const released = fixture('released', () => {});

async function gate(head: string) {
  const changelog = join(head, 'changelog.md');
  const args = [script, '--check', '--api', 'platform-public', '--base-dir', released, '--head-dir', head];
  const outcome = await promisify(execFile)(process.execPath, [...args, '--changelog', changelog]).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  // No changelog: the script itself failed (not the gate), and its stderr says why.
  if (!existsSync(changelog)) throw new Error(`api-changes.mjs failed:\n${outcome.stderr}${outcome.stdout}`);
  return { code: outcome.code, stdout: outcome.stdout, changelog: readFileSync(changelog, 'utf8') };
}

/** Breaking: a response property clients read (`User.email`) disappears. */
const dropEmail = (file: (path: string, change: (text: string) => string) => void) =>
  file('platform/components/schemas/User.yaml', (text) =>
    text.replace(/^required: \[(.*)\bemail, /m, 'required: [$1').replace(/^ {2}email:\n(?: {4}.*\n)+/m, ''),
  );

describe('the breaking-change gate (platform-public against a fixture release)', () => {
  it('passes a compatible change and lists it in the changelog', async () => {
    const head = fixture('compatible', (file) =>
      file('platform/paths/v1_users_{id}.yaml', (text) =>
        text.replace('  summary: Retrieve a user\n', '  summary: Retrieve one user\n'),
      ),
    );
    const result = await gate(head);
    expect(result.stdout).toContain('0 with a breaking change');
    expect(result.code).toBe(0);
    expect(result.changelog).toMatch(/\*\*Changed\*\*\n\n- `GET \/v1\/users\/\{id\}` \(\d+ changes?\)\n/);
  });

  it('fails a breaking change, naming the operation and the way out', async () => {
    const result = await gate(fixture('breaking', dropEmail));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("cannot remove response property 'email'");
    expect(result.stdout).toMatch(/✗ breaking change in .*GET \/v1\/users\/\{id\}.*release it as 2\.0\.0/);
    expect(result.changelog).toMatch(/`GET \/v1\/users\/\{id\}` \(\d+ changes?\) — \*\*breaking\*\*/);
  });

  it('passes the same change released as a new major version', async () => {
    const head = fixture('major', (file) => {
      dropEmail(file);
      file('platform/openapi.yaml', (text) =>
        text.replace(/^ {2}version: 1\.\d+\.\d+$/m, '  version: 2.0.0'),
      );
    });
    const result = await gate(head);
    expect(result.stdout).toContain('1.0.0 → 2.0.0');
    expect(result.code).toBe(0);
  });

  it('passes the same change acknowledged with its reason, which the changelog shows', async () => {
    const head = fixture('acknowledged', dropEmail);
    const operations = ['GET /v1/users/{id}', 'GET /v1/users', 'PUT /v1/users/{id}', 'POST /v1/users'];
    writeFileSync(
      join(head, 'spec', 'acknowledged-breaking-changes.yaml'),
      `platform-public:\n${operations.map((operation) => `  - operation: ${operation}\n    reason: No client reads email yet.\n`).join('')}`,
    );
    const result = await gate(head);
    expect(result.code, result.stdout).toBe(0);
    expect(result.changelog).toContain('— **breaking**: No client reads email yet.');
  });
});

describe('the scratch folder', () => {
  it("is removed when the run is interrupted (Ctrl-C during a build), and a dead run's folder by the next run", async () => {
    const temp = join(scratch, 'tmp');
    mkdirSync(temp);
    // What a run killed outright leaves: a folder named after a pid that is gone.
    const deadPid = 2 ** 22 + 1; // above Linux's pid_max: never a live process
    mkdirSync(join(temp, `api-changes-${deadPid}-abcdef`));
    // In its own process group, which gets the SIGINT as a terminal's Ctrl-C does: Redocly or Optic too.
    const child = spawn(
      process.execPath,
      [script, '--api', 'platform-public', '--base-dir', released, '--head-dir', released],
      { env: { ...process.env, TMPDIR: temp }, stdio: 'ignore', detached: true },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Interrupted once it has made its own folder (the dead run's is gone by then).
    await vi.waitFor(
      () => {
        expect(readdirSync(temp)).toEqual([expect.stringMatching(new RegExp(`^api-changes-${child.pid}-`))]);
      },
      { timeout: 120_000, interval: 50 },
    );
    process.kill(-(child.pid ?? 0), 'SIGINT');
    expect(await exited).toBe(130);
    expect(readdirSync(temp)).toEqual([]);
  });
});

describe('--help', () => {
  it('prints the usage (-h too) and does nothing else', async () => {
    for (const flag of ['--help', '-h']) {
      const { stdout } = await promisify(execFile)(process.execPath, [script, flag]);
      expect(stdout).toContain('node scripts/api-changes.mjs --check');
      expect(stdout).toContain('--base REF');
    }
  });
});
