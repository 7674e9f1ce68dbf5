// The reference server (apps/server) as a black box on a free port, on SQLite in a temp folder: its CLI
// creates OAuth clients, `serve` runs it. apps/server depends on this package, so it cannot be a
// dependency here; turbo.json orders its build before these tests instead, and a machine where it is not
// built gets a loud skip (a failure under CI=true).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '@platform-api/test-support';
import { expect, vi } from 'vitest';

const cli = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../apps/server/dist/cli.js');

/** Why the reference server cannot run here, or undefined when it can. */
export function referenceServerProblem(): string | undefined {
  return existsSync(cli)
    ? undefined
    : `${cli} is not built (pnpm exec turbo run build --filter=@platform-api/server)`;
}

export interface ReferenceServer {
  url: string;
  createClient(scopes: string[]): Promise<{ clientId: string; clientSecret: string }>;
  close(): Promise<void>;
}

export async function startReferenceServer(env: Record<string, string> = {}): Promise<ReferenceServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'client-server-'));
  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'warn',
    PLATFORM_BOOTSTRAP: 'false',
    PLATFORM_PUBLIC_URL: `http://127.0.0.1:${port}`,
    PLATFORM_DATA_DIR: dataDir,
    ...env,
  };
  delete serverEnv.DATABASE_URL;
  const child: ChildProcess = spawn(
    process.execPath,
    [cli, 'serve', '--port', String(port), '--host', '127.0.0.1'],
    { env: serverEnv, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise((done) => {
        child.once('exit', done);
        child.kill('SIGTERM');
      });
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await vi.waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`the reference server exited with ${child.exitCode}`);
        expect((await fetch(`${url}/readyz`)).status).toBe(200);
      },
      { timeout: 60_000, interval: 200 },
    );
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url,
    async createClient(scopes) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [cli, 'clients', 'create', '--instance', 'client-tests', '--scopes', scopes.join(','), '--json'],
        { env: serverEnv },
      );
      return JSON.parse(stdout) as { clientId: string; clientSecret: string };
    },
    close,
  };
}
