// Where things are: the repository (found from this file, so the CLI runs from any folder), the server's
// sources under measurement, and the state folder the run writes into.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('recall: not inside the platform-api repository');
    dir = parent;
  }
  return dir;
}

export const repoRoot = findRepoRoot();
export const serverRoot = join(repoRoot, 'apps', 'server');
export const recallRoot = join(repoRoot, 'packages', 'recall');
export const stateDir = join(repoRoot, '.state', 'recall');
export const platformBundle = join(repoRoot, 'spec', 'dist', 'platform.openapi.json');
export const contractTestsDir = join(repoRoot, 'packages', 'contract-tests');

/**
 * The request-handling code whose mutants are measured: what answers a request once Fastify has routed
 * it. The database layer, the dispatcher and the CLI are out of scope: the contract suite does not aim at them.
 */
export const MUTATED_SOURCES = ['src/handlers', 'src/auth', 'src/spec-routes.ts'] as const;

/** A path relative to apps/server, with forward slashes (the mutant's stable file name). */
export const serverRelative = (absolute: string) =>
  resolve(absolute)
    .slice(serverRoot.length + 1)
    .split('\\')
    .join('/');
