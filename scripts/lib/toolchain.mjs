// Shared by start.mjs and test.mjs: run commands, find pnpm (the version pinned in package.json's
// packageManager, through npx when it is not installed) and install the workspace.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager; // "pnpm@x.y.z"

export function log(message) {
  console.log(`\n\x1b[1m▶ ${message}\x1b[0m`);
}

/** Runs a command in the repo root with inherited output; throws when it fails. */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed with ${result.status ?? result.signal}`);
  }
}

/** The pnpm command line: the installed pnpm if it is the pinned version, else `npx pnpm@<pinned>`. */
export function pnpmCommand() {
  const version = pinned.split('@')[1];
  try {
    const installed = execFileSync('pnpm', ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (installed === version) return ['pnpm'];
  } catch {
    // not installed: fall through to npx
  }
  return ['npx', '--yes', pinned];
}

export function pnpm(args, options) {
  const [command, ...prefix] = pnpmCommand();
  run(command, [...prefix, ...args], options);
}

/** How the workspace is installed: the pinned pnpm, frozen lockfile. */
export function installCommand() {
  const [command, ...prefix] = pnpmCommand();
  return {
    description: `Installing the workspace (${pinned}, frozen lockfile)`,
    command,
    args: [...prefix, 'install', '--frozen-lockfile'],
    env: { ...process.env, COREPACK_ENABLE_STRICT: '0' },
  };
}

export function installWorkspace() {
  const { description, command, args, env } = installCommand();
  log(description);
  run(command, args, { env });
}

export const turboEnv = {
  ...process.env,
  TURBO_TELEMETRY_DISABLED: '1',
  DO_NOT_TRACK: '1',
  REDOCLY_TELEMETRY: 'off',
};

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
