// The suite as teams outside this repository get it: the four packages packed as `pnpm publish` packs
// them (workspace:* replaced by versions, only their `files` shipped), installed with npm from the
// tarballs alone into an empty project (third-party dependencies from the registry), and the installed
// `contract-tests` run with npx from that project — with the workspace's bin folders out of PATH, so
// nothing of the repository can stand in for a file the tarballs lack. It lists its checks, passes a
// platform run against the reference server, explains its usage, and runs the site suite it ships (the
// scenarios under vitest, against a port where nothing listens). Without the npm registry this is a loud
// skip (a failure under CI=true).
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unavailable } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/index.js';
import { type ReferenceServer, startReferenceServer } from '../platform/support/reference-server.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
/** The published packages and their folders: contract-tests and everything it depends on here. */
const packages: Record<string, string> = {
  '@platform-api/spec': 'spec',
  '@platform-api/validator': 'packages/validator',
  '@platform-api/test-support': 'packages/test-support',
  '@platform-api/contract-tests': 'packages/contract-tests',
};

type Manifest = {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  exports?: unknown;
  bin?: Record<string, string>;
} & Partial<Record<'dependencies' | 'peerDependencies' | 'optionalDependencies', Record<string, string>>>;

const readManifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/**
 * The environment of a user outside the repository: no bin folder of the workspace on PATH, and nothing
 * of the pnpm script or the vitest run this test is part of.
 */
function outsideEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      /^(npm_package_|npm_lifecycle_|pnpm_|VITEST)/i.test(name) ||
      ['npm_execpath', 'npm_command', 'npm_config_user_agent', 'INIT_CWD', 'NODE_PATH'].includes(name)
    )
      delete env[name];
  }
  env.PATH = (env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => entry && !resolve(entry).startsWith(repoRoot + sep))
    .join(delimiter);
  return env;
}

const tail = (result: SpawnSyncReturns<string>) =>
  `exit ${result.status ?? result.signal}${result.error ? ` (${result.error.message})` : ''}\n` +
  `--- stdout\n${(result.stdout ?? '').slice(-4000)}\n--- stderr\n${(result.stderr ?? '').slice(-3000)}`;

function run(command: string, args: string[], cwd: string, timeout: number, env = outsideEnv()) {
  return spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout });
}

/** Why npm cannot reach its registry from here, or undefined when it can. */
function registryProblem(): string | undefined {
  const ping = run('npm', ['ping'], tmpdir(), 30_000);
  if (ping.error) return `npm ping could not run (${ping.error.message})`;
  if (ping.status !== 0) return `npm ping failed: ${`${ping.stderr}`.trim().split('\n').slice(-3).join(' ')}`;
  return undefined;
}

const problem = registryProblem();
if (problem) {
  unavailable(
    'the packed packages installed with npm',
    `the npm registry is not reachable, so the tarballs' third-party dependencies cannot be installed (${problem})`,
  );
} else {
  describe('the packed packages, installed with npm outside the workspace', () => {
    const work = mkdtempSync(join(tmpdir(), 'contract-tarball-'));
    const tarballs = join(work, 'tarballs');
    const project = join(work, 'project');
    const installed = (name: string) => join(project, 'node_modules', name);
    /**
     * `npx -- contract-tests …` from the project: only its own installed bin, never one fetched by npx
     * (`--no`); `--` keeps npm from taking the CLI's flags (`--list-checks`) for its own.
     */
    const contractTests = (args: string[], timeout = 60_000) =>
      run('npx', ['--no', '--', 'contract-tests', ...args], project, timeout);

    beforeAll(() => {
      mkdirSync(project);
      for (const dir of Object.values(packages)) {
        const pack = run(
          'pnpm',
          ['pack', '--pack-destination', tarballs],
          join(repoRoot, dir),
          60_000,
          process.env,
        );
        expect(pack.status, `pnpm pack in ${dir}\n${tail(pack)}`).toBe(0);
      }
      const files = readdirSync(tarballs).filter((file) => file.endsWith('.tgz'));
      expect(files).toHaveLength(Object.keys(packages).length);
      writeFileSync(
        join(project, 'package.json'),
        `${JSON.stringify({ name: 'outside-consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
      );
      const install = run(
        'npm',
        ['install', '--no-audit', '--no-fund', ...files.map((file) => join(tarballs, file))],
        project,
        180_000,
      );
      expect(install.status, `npm install of the tarballs\n${tail(install)}`).toBe(0);
    }, 240_000);
    afterAll(() => {
      rmSync(work, { recursive: true, force: true });
    });

    it('ships manifests with real versions and every file their exports and bin point at', () => {
      for (const [name, dir] of Object.entries(packages)) {
        const source = readManifest(join(repoRoot, dir));
        const shipped = readManifest(installed(name));
        expect(shipped.name).toBe(name);
        expect(shipped.version).toBe(source.version);
        expect(shipped.private, `${name} is private`).toBeUndefined();
        expect(shipped.license, name).toBe('MIT');
        for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
          for (const [dependency, range] of Object.entries(shipped[field] ?? {})) {
            expect(range, `${name} ${field}.${dependency}`).not.toMatch(/^(workspace|link|file):/);
            const local = packages[dependency];
            if (local)
              expect(range, `${name} → ${dependency}`).toBe(readManifest(join(repoRoot, local)).version);
          }
        }
        const targets: string[] = [];
        const collect = (value: unknown): void => {
          if (typeof value === 'string') targets.push(value);
          else if (value && typeof value === 'object') Object.values(value).forEach(collect);
        };
        collect(shipped.exports);
        collect(shipped.bin);
        expect(targets.length, `${name} exports nothing`).toBeGreaterThan(0);
        for (const target of targets)
          expect(existsSync(join(installed(name), target)), `${name}: ${target} is not in the tarball`).toBe(
            true,
          );
      }
      // npm agrees the tree is whole: no missing dependency, every peer (vitest of test-support) satisfied.
      const tree = run('npm', ['ls', '--all'], project, 60_000);
      expect(tree.status, tail(tree)).toBe(0);
    });

    it('`npx contract-tests --list-checks` runs the installed bin and lists the checks', () => {
      const bin = realpathSync(join(project, 'node_modules', '.bin', 'contract-tests'));
      expect(bin).toBe(
        realpathSync(join(installed('@platform-api/contract-tests'), 'bin', 'contract-tests.mjs')),
      );
      const result = contractTests(['--list-checks']);
      expect(result.status, tail(result)).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines.length).toBeGreaterThanOrEqual(5);
      for (const line of lines) expect(line).toMatch(/^[a-z_]+ +\S/);
      expect(result.stdout).toMatch(/^not_a_server_error /m);
      expect(result.stdout).toMatch(/^response_schema_conformance /m);
    });

    describe('against the reference server', () => {
      let server: ReferenceServer;
      let credentials: { clientId: string; clientSecret: string };

      beforeAll(async () => {
        server = await startReferenceServer('sqlite', { PLATFORM_RATE_LIMIT: '0' });
        credentials = await server.createClient('tarball-target', ['user', 'data', 'chat']);
      }, 120_000);
      afterAll(async () => {
        await server?.close();
      });

      it('`npx contract-tests platform --phases examples` passes and writes its JUnit report', () => {
        const junit = join(work, 'r.xml');
        const result = contractTests(
          [
            'platform',
            '--base-url',
            server.url,
            '--client-id',
            credentials.clientId,
            '--client-secret',
            credentials.clientSecret,
            '--phases',
            'examples',
            '--junit',
            junit,
          ],
          120_000,
        );
        expect(result.status, tail(result)).toBe(0);
        expect(result.stdout).toMatch(/[1-9]\d* passed, 0 failed/);
        expect(existsSync(junit)).toBe(true);
        expect(readFileSync(junit, 'utf8')).toMatch(/<testsuites [^>]*failures="0"/);
      }, 150_000);
    });

    it('`npx contract-tests site` explains its usage: 0 for --help, 2 for missing arguments', () => {
      const help = contractTests(['site', '--help']);
      expect(help.status, tail(help)).toBe(0);
      expect(help.stdout).toContain('contract-tests site --base-url URL --user USER --app-password PASSWORD');
      const missing = contractTests(['site', '--base-url', 'http://127.0.0.1:9']);
      expect(missing.status, tail(missing)).toBe(2);
      expect(missing.stderr).toContain('Missing --user, --app-password');
    });

    it('`npx contract-tests site` runs the site suite it ships (here: a site that does not answer fails)', async () => {
      const url = `http://127.0.0.1:${await freePort()}`;
      const junit = join(work, 'site.xml');
      const result = contractTests(
        [
          'site',
          '--base-url',
          url,
          '--user',
          'admin',
          '--app-password',
          'x',
          '--phases',
          'stateful',
          '--junit',
          junit,
        ],
        120_000,
      );
      // The scenarios loaded from the installed copy (every file they import is in the tarball) and ran:
      // the one failure is theirs, that the site does not answer.
      expect(result.stdout, tail(result)).not.toMatch(
        /Cannot find (module|package)|Failed to (load|resolve)/,
      );
      expect(result.stdout, tail(result)).toMatch(/site contract tests against .* does not answer/);
      expect(result.status, tail(result)).toBe(1);
      expect(readFileSync(junit, 'utf8')).toMatch(/<testsuites [^>]*failures="[1-9]\d*"/);
    }, 150_000);
  });
}
