// Where the PostgreSQL runs of the test suites find their database, from one place: the variable
// `npm test` sets, else the env file of this checkout's private cluster (scripts/postgres: each checkout
// has its own cluster, port and password, and writes the URL there on `up`). A suite run on its own
// thus reaches its checkout's cluster, never another checkout's on a port they would share.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type TestDatabase = {
  /** The connection URL, password included; undefined when there is none to be had. */
  url: string | undefined;
  /** Where it came from (or why there is none), for messages: never the password. */
  source: string;
};

/** The repository's root: the nearest folder above this module with a pnpm-workspace.yaml. */
function repositoryRoot(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * `PLATFORM_TEST_DATABASE_URL` when set; else the URL in the env file of this checkout's private
 * PostgreSQL (`POSTGRES_STATE_DIR`, default `<repo>/.state/postgres`), written by
 * `bash scripts/postgres/postgres.sh up`; else none.
 */
export function testDatabaseUrl(environment: NodeJS.ProcessEnv = process.env): TestDatabase {
  const given = environment.PLATFORM_TEST_DATABASE_URL;
  if (given) return { url: given, source: 'PLATFORM_TEST_DATABASE_URL' };
  const root = repositoryRoot();
  const stateDir = environment.POSTGRES_STATE_DIR
    ? resolve(environment.POSTGRES_STATE_DIR)
    : root && join(root, '.state', 'postgres');
  const envFile = stateDir && join(stateDir, 'env');
  if (!envFile || !existsSync(envFile))
    return {
      url: undefined,
      source:
        'no PLATFORM_TEST_DATABASE_URL and no private PostgreSQL of this checkout (`npm test` starts one; or `bash scripts/postgres/postgres.sh up`)',
    };
  const url = /^PLATFORM_TEST_DATABASE_URL=(\S+)$/m.exec(readFileSync(envFile, 'utf8'))?.[1];
  return url
    ? { url, source: `this checkout's private PostgreSQL (${envFile})` }
    : { url: undefined, source: `${envFile} names no PLATFORM_TEST_DATABASE_URL` };
}
