// The client as a user gets it, before it is published: `pnpm pack` (whose prepack builds dist/), the
// tarball installed with npm into an empty project (openapi-fetch from the registry), the README's
// Usage example compiled there with tsc against the installed types and run with node against the
// reference server. Without the npm registry or the built server this is a loud skip (a failure under
// CI=true).
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unavailable } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ReferenceServer,
  referenceServerProblem,
  startReferenceServer,
} from './support/reference-server.js';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(packageDir, 'node_modules/typescript/bin/tsc');

const tail = (result: SpawnSyncReturns<string>) =>
  `exit ${result.status ?? result.signal}${result.error ? ` (${result.error.message})` : ''}\n` +
  `--- stdout\n${(result.stdout ?? '').slice(-3000)}\n--- stderr\n${(result.stderr ?? '').slice(-3000)}`;

function run(command: string, args: string[], cwd: string, timeout: number, env: NodeJS.ProcessEnv = {}) {
  return spawnSync(command, args, { cwd, encoding: 'utf8', timeout, env: { ...process.env, ...env } });
}

/** The first TypeScript block of the README's "## Usage" section. */
function readmeUsageExample(): string {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Usage\n'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no ```ts block under ## Usage');
  return block;
}

function registryProblem(): string | undefined {
  const ping = run('npm', ['ping'], tmpdir(), 30_000);
  return ping.status === 0 ? undefined : `npm ping failed: ${tail(ping).slice(-300)}`;
}

const problem = referenceServerProblem() ?? registryProblem();
if (problem) {
  unavailable('the packed client installed with npm', problem);
} else {
  describe('the packed client, installed with npm outside the workspace', () => {
    const work = mkdtempSync(join(tmpdir(), 'client-tarball-'));
    const project = join(work, 'project');
    const installed = join(project, 'node_modules/@platform-api/client');
    let server: ReferenceServer;

    beforeAll(async () => {
      const pack = run('pnpm', ['pack', '--pack-destination', work], packageDir, 300_000);
      expect(pack.status, `pnpm pack\n${tail(pack)}`).toBe(0);
      const [tarball] = readdirSync(work).filter((file) => file.endsWith('.tgz'));
      expect(tarball, 'pnpm pack wrote no tarball').toBeDefined();

      mkdirSync(project);
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({ name: 'scratch', private: true, type: 'module' }),
      );
      const install = run(
        'npm',
        ['install', '--no-audit', '--no-fund', join(work, tarball as string)],
        project,
        180_000,
      );
      expect(install.status, `npm install of the tarball\n${tail(install)}`).toBe(0);

      server = await startReferenceServer();
    }, 600_000);
    afterAll(async () => {
      await server?.close();
      rmSync(work, { recursive: true, force: true });
    });

    it('ships dist/ with the public API only, and every file its exports point at', () => {
      const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
      const targets: string[] = [];
      const collect = (value: unknown): void => {
        if (typeof value === 'string') targets.push(value);
        else if (value && typeof value === 'object') Object.values(value).forEach(collect);
      };
      collect(manifest.exports);
      expect(targets).toContain('./dist/index.js');
      for (const target of targets)
        expect(readFileSync(join(installed, target)).length, target).toBeGreaterThan(0);
      expect(Object.keys(manifest.exports)).not.toContain('./internal');

      const shipped = readdirSync(join(installed, 'dist'));
      expect(shipped.some((file) => file.startsWith('internal'))).toBe(false);
      for (const file of shipped) {
        expect(readFileSync(join(installed, 'dist', file), 'utf8'), file).not.toContain('/v1/chat/channels');
      }
    });

    it("compiles the README's Usage example with tsc and runs it against the reference server", async () => {
      writeFileSync(join(project, 'index.ts'), readmeUsageExample());
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'es2022',
            module: 'nodenext',
            moduleResolution: 'nodenext',
            strict: true,
            skipLibCheck: false,
            // @types/node from this package: the example reads process.env.
            typeRoots: [join(packageDir, 'node_modules/@types')],
            types: ['node'],
          },
          files: ['index.ts'],
        }),
      );
      const compile = run(process.execPath, [tsc, '-p', 'tsconfig.json'], project, 120_000);
      expect(compile.status, `tsc\n${tail(compile)}`).toBe(0);

      const credentials = await server.createClient(['user', 'data']);
      const example = run(process.execPath, ['index.js'], project, 60_000, {
        PLATFORM_API_URL: server.url,
        PLATFORM_CLIENT_ID: credentials.clientId,
        PLATFORM_CLIENT_SECRET: credentials.clientSecret,
      });
      expect(example.status, `node index.js\n${tail(example)}`).toBe(0);
      const [createdLine, listedLine] = example.stdout.trim().split('\n');
      expect(createdLine).toMatch(/^(\d+) \/v1\/users\/\1$/);
      expect(listedLine).toContain('ada@example.com');
    }, 180_000);
  });
}
