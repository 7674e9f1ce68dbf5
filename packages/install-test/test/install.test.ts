// The published packages as their users get them. Each publishable package of the workspace is published
// to a throwaway local npm registry (Verdaccio: test/support/registry.ts); the READMEs' own commands, read
// from the READMEs, install them into a project made by `npm init -y`, with the documented `.npmrc` line
// pointing the `@platform-api` scope at that registry; the client's Usage example is compiled with tsc and run
// against the reference server, and the contract suite's CLI is run there as its README shows. Everything
// else comes from the registry npm uses here, through a recorder standing in for the public registry: npm
// must never ask it for an `@platform-api` package (dependency confusion). The same from tarballs, installed
// with the one command the READMEs give.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ReferenceServer,
  readmeBlock,
  startReferenceServer,
  unavailable,
} from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packTarballs, publishablePackages } from '../../../scripts/lib/publishable.mjs';
import { type RecordingRegistry, startRecordingRegistry } from './support/recording-registry.js';
import { type LocalRegistry, startLocalRegistry } from './support/registry.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const clientReadme = join(repoRoot, 'packages/client/README.md');
const suiteReadme = join(repoRoot, 'packages/contract-tests/README.md');
/** What the READMEs write where a reader puts their registry's address. */
const DOCUMENTED_REGISTRY = 'https://npm.example.com/';
/** Where the READMEs' tarball commands expect a checkout of this repository. */
const DOCUMENTED_TARBALLS = '../platform-api/dist/packages';
const serverCli = join(dirname(createRequire(import.meta.url).resolve('@platform-api/server')), 'cli.js');
const published = publishablePackages();

/**
 * The environment of a user outside the repository: no bin folder of the workspace on PATH, nothing of the
 * pnpm script or the vitest run this test is part of.
 */
function outsideEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(npm_|pnpm_|VITEST|TURBO_)/i.test(name) || ['INIT_CWD', 'NODE_PATH', 'NODE_OPTIONS'].includes(name))
      delete env[name];
  }
  env.PATH = (env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => entry && !resolve(entry).startsWith(repoRoot + sep))
    .join(delimiter);
  return env;
}

interface RunResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const tail = (result: RunResult) =>
  `exit ${result.status ?? result.signal}\n` +
  `--- stdout\n${result.stdout.slice(-4000)}\n--- stderr\n${result.stderr.slice(-3000)}`;

/**
 * Runs a command to its end without blocking this process, which serves the recording registry npm talks to
 * (a spawnSync would leave npm's requests unanswered until it timed out).
 */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

/** Shell lines as a reader runs them: bash, stopping at the first failing command. */
const shell = (script: string, cwd: string, env: NodeJS.ProcessEnv) =>
  run('bash', ['-e', '-o', 'pipefail', '-c', script], cwd, env);

const manifestOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    private?: boolean;
    type?: string;
    license?: string;
    exports?: unknown;
    bin?: Record<string, string>;
  } & Partial<Record<'dependencies' | 'peerDependencies', Record<string, string>>>;

/** Every file path an `exports` or `bin` field names. */
function targetsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (value && typeof value === 'object')
    for (const entry of Object.values(value)) targetsOf(entry, into);
  return into;
}

/** Why npm cannot reach the registry it uses here (third-party dependencies come from there), if it cannot. */
function registryProblem(): string | undefined {
  const ping = spawnSync('npm', ['ping'], { env: outsideEnv(), encoding: 'utf8', timeout: 60_000 });
  if (ping.status === 0) return undefined;
  return `npm ping failed: ${`${ping.error?.message ?? ''} ${ping.stderr ?? ''}`.trim().split('\n').slice(-3).join(' ')}`;
}

const problem = registryProblem();
if (problem)
  unavailable(
    'the published packages, installed as their READMEs say',
    `the npm registry is not reachable, so the packages' third-party dependencies cannot be installed (${problem})`,
  );
else describe('the published packages, installed as their READMEs say', installTests);

function installTests() {
  const work = mkdtempSync(join(tmpdir(), 'install-test-'));
  const project = join(work, 'project');
  let registry: LocalRegistry;
  let publicRegistry: RecordingRegistry;
  let server: ReferenceServer;
  /** The environment of npm in the projects: a fresh cache, and the recorder as the default registry. */
  let npmEnv: NodeJS.ProcessEnv;
  const asksForScope = (requests: string[]) => requests.filter((path) => path.includes('@platform-api'));

  beforeAll(async () => {
    registry = await startLocalRegistry(join(work, 'registry'));
    for (const { name, dir } of published) {
      // What the workspace built (turbo: this test depends on every package's build), as pnpm publishes it.
      const publish = await run(
        'pnpm',
        ['publish', '--registry', registry.url, '--no-git-checks', '--ignore-scripts'],
        join(repoRoot, dir),
        { ...process.env, NPM_CONFIG_USERCONFIG: registry.publisherConfig },
      );
      expect(publish.status, `pnpm publish of ${name}\n${tail(publish)}`).toBe(0);
    }
    const upstream = (await run('npm', ['config', 'get', 'registry'], work, outsideEnv())).stdout.trim();
    expect(upstream).toMatch(/^https?:\/\//);
    publicRegistry = await startRecordingRegistry(upstream);
    npmEnv = {
      ...outsideEnv(),
      npm_config_registry: publicRegistry.url,
      npm_config_cache: join(work, 'npm-cache'),
      npm_config_update_notifier: 'false',
      // npx fails instead of asking whether to fetch a command the project lacks.
      npm_config_yes: 'false',
    };
    // As `npm start` runs it: default settings, its rate limiter (1,200 requests a minute) on.
    server = await startReferenceServer(serverCli);
  });

  afterAll(async () => {
    await server?.close();
    await publicRegistry?.close();
    await registry?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("installs the client and the contract suite with the READMEs' commands, from the scope's registry only", async () => {
    mkdirSync(project);
    // The client's "new project" steps, then the suite's install line; the registry is ours.
    const newProject = readmeBlock(clientReadme, '### A new project', 'sh').replaceAll(
      DOCUMENTED_REGISTRY,
      registry.url,
    );
    expect(newProject).toContain('npm init -y');
    expect(newProject).toContain(`@platform-api:registry=${registry.url}`);
    const suiteInstall = readmeBlock(suiteReadme, '## Install', 'sh')
      .split('\n')
      .filter((line) => line.startsWith('npm install'));
    expect(suiteInstall).toEqual(['npm install --save-dev @platform-api/contract-tests']);
    const install = await shell([newProject, ...suiteInstall].join('\n'), project, npmEnv);
    expect(install.status, `the README's commands\n${tail(install)}`).toBe(0);

    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; integrity?: string }>;
    };
    for (const { name, version } of published) {
      // Installed at the version of the workspace: the very tarball our registry serves.
      const packument = (await (await fetch(new URL(name.replace('/', '%2f'), registry.url))).json()) as {
        versions: Record<string, { dist: { integrity: string } }>;
      };
      expect(lock.packages[`node_modules/${name}`], name).toMatchObject({
        version,
        integrity: packument.versions[version]?.dist.integrity,
      });
    }
    // Their dependencies came through the stand-in for the public registry, and nothing of the scope did.
    expect(publicRegistry.requested).toContain('/openapi-fetch');
    expect(asksForScope(publicRegistry.requested)).toEqual([]);
    // npm agrees the tree is whole: no missing dependency, every peer satisfied.
    const tree = await run('npm', ['ls', '--all'], project, npmEnv);
    expect(tree.status, tail(tree)).toBe(0);
  });

  it('without the `.npmrc` line, npm asks the public registry for the scope (what the line prevents)', async () => {
    const elsewhere = join(work, 'no-scope-line');
    mkdirSync(elsewhere);
    const before = publicRegistry.requested.length;
    await run('npm', ['view', '@platform-api/client', 'version'], elsewhere, npmEnv);
    expect(asksForScope(publicRegistry.requested.slice(before))).toContain('/@platform-api/client');
  });

  it('ships manifests with real versions, and every file their exports and bin point at', async () => {
    for (const { name, version } of published) {
      const shipped = manifestOf(join(project, 'node_modules', name));
      expect(shipped.version).toBe(version);
      expect(shipped.private, `${name} is private`).toBeUndefined();
      expect(shipped.license, name).toBe('MIT');
      for (const [dependency, range] of Object.entries({
        ...shipped.dependencies,
        ...shipped.peerDependencies,
      })) {
        expect(range, `${name} → ${dependency}`).not.toMatch(/^(workspace|link|file):/);
        const local = published.find((candidate) => candidate.name === dependency);
        if (local)
          expect(range, `${name} → ${dependency}`).toBe(manifestOf(join(repoRoot, local.dir)).version);
      }
      const targets = targetsOf([shipped.exports, shipped.bin]);
      expect(targets.length, `${name} exports nothing`).toBeGreaterThan(0);
      for (const target of targets)
        expect(existsSync(join(project, 'node_modules', name, target)), `${name}: ${target}`).toBe(true);
    }
    // The client ships the public API only: no internal entry point, no internal operation.
    const client = join(project, 'node_modules/@platform-api/client');
    expect(Object.keys(manifestOf(client).exports as object)).not.toContain('./internal');
    const shippedFiles = (await run('find', ['dist', '-type', 'f'], client, npmEnv)).stdout
      .trim()
      .split('\n');
    expect(shippedFiles.filter((file) => file.includes('internal'))).toEqual([]);
    for (const file of shippedFiles)
      expect(readFileSync(join(client, file), 'utf8'), file).not.toContain('/v1/chat/channels');
  });

  it("compiles the client's Usage example with tsc --strict and runs it against the reference server", async () => {
    writeFileSync(join(project, 'tsconfig.json'), readmeBlock(clientReadme, '### A new project', 'json'));
    writeFileSync(join(project, 'index.ts'), readmeBlock(clientReadme, '## Usage', 'ts'));
    const credentials = await server.createClient('install-test', ['user', 'data']);
    const example = await shell(readmeBlock(clientReadme, '### A new project', 'sh', 1), project, {
      ...npmEnv,
      PLATFORM_API_URL: server.url,
      PLATFORM_CLIENT_ID: credentials.clientId,
      PLATFORM_CLIENT_SECRET: credentials.clientSecret,
    });
    expect(example.status, `npx tsc && node index.js\n${tail(example)}`).toBe(0);
    const [createdLine, listedLine] = example.stdout.trim().split('\n');
    expect(createdLine).toMatch(/^(\d+) \/v1\/users\/\1$/);
    expect(listedLine).toMatch(/ada\.\d+@example\.com/);
    // Run again, as a reader does after an edit: its data is its own, no 409 for an e-mail taken before.
    const again = await shell('node index.js', project, {
      ...npmEnv,
      PLATFORM_API_URL: server.url,
      PLATFORM_CLIENT_ID: credentials.clientId,
      PLATFORM_CLIENT_SECRET: credentials.clientSecret,
    });
    expect(again.status, `node index.js, a second time\n${tail(again)}`).toBe(0);
  });

  /** `npx -- contract-tests …` in the project: its own installed bin, never one npx would fetch. */
  const contractTests = (args: string[], env = npmEnv) =>
    run('npx', ['--no', '--', 'contract-tests', ...args], project, env);

  it('runs `npx -- contract-tests --list-checks` from the installed bin', async () => {
    expect(realpathSync(join(project, 'node_modules/.bin/contract-tests'))).toBe(
      realpathSync(join(project, 'node_modules/@platform-api/contract-tests/bin/contract-tests.mjs')),
    );
    const listed = await contractTests(['--list-checks']);
    expect(listed.status, tail(listed)).toBe(0);
    expect(listed.stdout).toMatch(/^not_a_server_error +\S/m);
    expect(listed.stdout).toMatch(/^response_schema_conformance +\S/m);
  });

  it("runs the suite README's command verbatim against the reference server as npm start runs it: 0 failures", async () => {
    const command = readmeBlock(suiteReadme, '## Install', 'sh')
      .split('\n')
      .find((line) => line.startsWith('npx -- contract-tests platform'));
    expect(command).toContain('--base-url http://localhost:3000');
    const credentials = await server.createClient('install-test-suite', ['user', 'data', 'chat']);
    const env = { ...npmEnv, CLIENT_ID: credentials.clientId, CLIENT_SECRET: credentials.clientSecret };
    // Verbatim but for where the server listens: every phase, a fresh random seed (printed).
    const headline = await shell(command?.replace('http://localhost:3000', server.url) ?? '', project, env);
    expect(headline.status, tail(headline)).toBe(0);
    expect(headline.stdout).toMatch(
      /^phases: examples \d+ requests .*coverage .*fuzz .*stateful .*transport /m,
    );
    expect(headline.stdout).toMatch(/checks × operations: \d+ passed, 0 failed, \d+ skipped — PASSED/);
    // Several thousand requests against a limit of 1,200 a minute: the suite waited, and said so.
    expect(headline.stdout).toMatch(
      /^target throttled the run: \d+ answers? 429 waited out, [\d.]+ s waited/m,
    );
  });

  it('runs the site suite it ships: usage for --help and missing arguments, its scenarios against a site', async () => {
    const help = await contractTests(['site', '--help']);
    expect(help.status, tail(help)).toBe(0);
    expect(help.stdout).toContain('contract-tests site --base-url URL --user USER --app-password PASSWORD');
    const missing = await contractTests(['site', '--base-url', 'http://127.0.0.1:9']);
    expect(missing.status, tail(missing)).toBe(2);
    expect(missing.stderr).toContain('Missing --user, --app-password');
    // The scenarios load from the installed copy (every file they import is in the package) and run: against
    // a site that answers only its index, they fail, as scenarios, not as missing files.
    const notWordPress = http.createServer((request, response) => {
      const index = request.url === '/wp-json/';
      response.writeHead(index ? 200 : 404, { 'content-type': 'application/json' });
      response.end(JSON.stringify(index ? { namespaces: [], routes: {} } : { code: 'rest_no_route' }));
    });
    await new Promise<void>((resolve) => notWordPress.listen(0, '127.0.0.1', resolve));
    const { port } = notWordPress.address() as AddressInfo;
    const site = await contractTests([
      'site',
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--user',
      'admin',
      '--app-password',
      'x',
      '--phases',
      'stateful',
    ]).finally(() => notWordPress.close());
    expect(site.stdout, tail(site)).not.toMatch(/Cannot find (module|package)|Failed to (load|resolve)/);
    expect(site.stdout, tail(site)).toMatch(/^\d+\) site_scenario — /m);
    expect(site.status, tail(site)).toBe(1);
  });

  it('installs from tarballs with the one command each README gives, asking no registry for the scope', async () => {
    const tarballs = join(work, 'tarballs');
    mkdirSync(tarballs);
    packTarballs(tarballs, { ignoreScripts: true });
    const fromTarballs = join(work, 'from-tarballs');
    mkdirSync(fromTarballs);
    const commands = [
      'npm init -y',
      readmeBlock(suiteReadme, '## Install', 'sh', 1),
      readmeBlock(clientReadme, '### From tarballs', 'sh'),
    ].map((command) => command.replaceAll(DOCUMENTED_TARBALLS, tarballs));
    expect(commands.slice(1).join('\n').match(/\.tgz/g)).toHaveLength(2);
    const before = publicRegistry.requested.length;
    const install = await shell(commands.join('\n'), fromTarballs, npmEnv);
    expect(install.status, `${commands.join('\n')}\n${tail(install)}`).toBe(0);
    expect(asksForScope(publicRegistry.requested.slice(before))).toEqual([]);

    const tree = await run('npm', ['ls', '--all'], fromTarballs, npmEnv);
    expect(tree.status, tail(tree)).toBe(0);
    const listed = await run('npx', ['--no', '--', 'contract-tests', '--list-checks'], fromTarballs, npmEnv);
    expect(listed.status, tail(listed)).toBe(0);
    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "console.log(typeof (await import('@platform-api/client')).createPlatformClient)",
      ],
      fromTarballs,
      npmEnv,
    );
    expect(imported.stdout.trim(), tail(imported)).toBe('function');
    // That project is CommonJS (npm init -y): require() loads the client too (Node 20.19+ requires ESM).
    expect(manifestOf(fromTarballs).type ?? 'commonjs').toBe('commonjs');
    const required = await run(
      process.execPath,
      ['-e', "console.log(typeof require('@platform-api/client').createPlatformClient)"],
      fromTarballs,
      npmEnv,
    );
    expect(required.stdout.trim(), tail(required)).toBe('function');
  });
}
