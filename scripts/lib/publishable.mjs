// The packages this repository publishes: every workspace package not marked `private` (the client, and the
// contract suite with the packages it depends on). Used by `npm run tarballs` and by the install test
// (packages/install-test), so that both always cover the same set.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './toolchain.mjs';

/**
 * The folders pnpm-workspace.yaml names (`spec`, `packages/*`, …).
 * @returns {string[]}
 */
function workspaceDirs() {
  const patterns = [
    ...readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8').matchAll(/^packages:\n((?:\s+- .+\n)+)/gm),
  ].flatMap(([, list]) => [...list.matchAll(/- (\S+)/g)].map(([, pattern]) => pattern));
  return patterns.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => join(pattern.slice(0, -2), entry.name))
      : [pattern],
  );
}

/**
 * Each publishable package; `dir` relative to the repository root.
 * @returns {{ name: string; version: string; dir: string }[]}
 */
export function publishablePackages() {
  return workspaceDirs()
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ name: manifest.name, version: manifest.version, dir }));
}

/**
 * The tarballs for installing without a registry, in `outDir`: one for each publishable package that no other
 * one depends on (the client, the contract suite), with the workspace packages it depends on bundled inside
 * (`bundleDependencies`) and their own dependencies lifted into its manifest. npm installs each from that one
 * file, and never asks any registry for an `@platform-api` package: given its companions as separate tarballs,
 * it would still look each up on the public registry, where anyone could register the scope. Returns their
 * paths. `pnpm` is the command line that runs pnpm; `ignoreScripts` packs what is built as it is (no
 * `prepack` build), for callers that built it already.
 * @param {string} outDir
 * @param {{ pnpm?: string[]; ignoreScripts?: boolean }} [options]
 * @returns {string[]}
 */
export function packTarballs(outDir, { pnpm = ['pnpm'], ignoreScripts = false } = {}) {
  const staging = mkdtempSync(join(tmpdir(), 'platform-api-tarballs-'));
  try {
    const packages = publishablePackages();
    const packed = new Map(packages.map((pkg) => [pkg.name, pnpmPack(pkg, staging, pnpm, ignoreScripts)]));
    const own = (manifest) => Object.keys(manifest.dependencies ?? {}).filter((name) => packed.has(name));
    const manifests = new Map(packages.map(({ name, dir }) => [name, readManifest(join(root, dir))]));
    const products = packages.filter(
      ({ name }) => ![...manifests.values()].some((manifest) => own(manifest).includes(name)),
    );
    return products.map(({ name }) => {
      const dir = join(staging, 'standalone', name, 'package');
      untar(packed.get(name), dir);
      const manifest = readManifest(dir);
      // Every workspace package it needs, however deep, in its own node_modules.
      const bundled = new Set();
      const visit = (dependent) => {
        for (const dependency of own(manifests.get(dependent))) {
          if (bundled.has(dependency)) continue;
          bundled.add(dependency);
          visit(dependency);
        }
      };
      visit(name);
      for (const dependency of bundled) {
        untar(packed.get(dependency), join(dir, 'node_modules', dependency));
        // Their dependencies from the registry become the product's, installed beside it.
        for (const [lifted, range] of Object.entries(
          readManifest(join(dir, 'node_modules', dependency)).dependencies ?? {},
        )) {
          if (packed.has(lifted)) continue;
          const existing = manifest.dependencies[lifted];
          if (existing !== undefined && existing !== range)
            throw new Error(
              `${name} needs ${lifted}@${existing}, its bundled ${dependency} ${lifted}@${range}`,
            );
          manifest.dependencies[lifted] = range;
        }
      }
      if (bundled.size > 0) manifest.bundleDependencies = [...bundled];
      writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      const result = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', outDir], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      if (result.status !== 0) throw new Error(`npm pack of ${name} failed:\n${result.stderr}`);
      return join(outDir, result.stdout.trim().split('\n').at(-1));
    });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

const readManifest = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** `pnpm pack` of one package into `dir`, as `pnpm publish` packs it (workspace:* replaced by versions). */
function pnpmPack({ name, dir }, outDir, pnpm, ignoreScripts) {
  const [command, ...prefix] = pnpm;
  const result = spawnSync(command, [...prefix, 'pack', '--pack-destination', outDir], {
    cwd: join(root, dir),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: ignoreScripts ? { ...process.env, npm_config_ignore_scripts: 'true' } : process.env,
  });
  if (result.status !== 0) throw new Error(`pnpm pack of ${name} failed (${result.status ?? result.signal})`);
  const tarball = result.stdout.trim().split('\n').at(-1);
  if (!tarball?.endsWith('.tgz'))
    throw new Error(`pnpm pack of ${name} printed no tarball:\n${result.stdout}`);
  return tarball;
}

/** A package tarball's contents (its `package/` folder) into `dir`. */
function untar(tarball, dir) {
  mkdirSync(dir, { recursive: true });
  const result = spawnSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`tar could not unpack ${tarball}`);
}
