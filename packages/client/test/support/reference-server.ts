// The reference server (apps/server) as a black box (test-support's startReferenceServer), on SQLite in a
// temp folder. apps/server depends on this package, so it cannot be a dependency here; turbo.json orders its
// build before these tests instead, and a machine where it is not built gets a loud skip (a failure under
// CI=true).
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ReferenceServer, startReferenceServer as start } from '@platform-api/test-support';

const cli = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../apps/server/dist/cli.js');

/** Why the reference server cannot run here, or undefined when it can. */
export function referenceServerProblem(): string | undefined {
  return existsSync(cli)
    ? undefined
    : `${cli} is not built (pnpm exec turbo run build --filter=@platform-api/server)`;
}

export type { ReferenceServer };

export const startReferenceServer = (env: Record<string, string> = {}): Promise<ReferenceServer> =>
  start(cli, { env });
