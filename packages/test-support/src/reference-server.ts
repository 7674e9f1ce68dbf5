// The reference server (apps/server) as a black box, as a user runs it: `<cli> serve` on a free loopback
// port, waited for until /readyz answers, its CLI creating OAuth clients. On SQLite in a temp folder of its
// own unless the environment names a DATABASE_URL. The CLI's path is the caller's: apps/server depends on
// packages that use this, so it cannot be a dependency here.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';
import { startProcess } from './processes.js';

export interface ReferenceServerOptions {
  /** Added to the server's environment (and its CLI's): PLATFORM_RATE_LIMIT, DATABASE_URL, … */
  env?: Record<string, string>;
  /** Every line the server writes (stdout and stderr); by default they go to this process's stderr. */
  onLine?: (line: string) => void;
  /** Serve HTTPS with this certificate (`--tls-cert`/`--tls-key`); the URL is then https://. */
  tls?: { certFile: string; keyFile: string; cert: string };
}

export interface ReferenceServer {
  url: string;
  createClient(instance: string, scopes: string[]): Promise<{ clientId: string; clientSecret: string }>;
  deleteClient(clientId: string): Promise<void>;
  /** Stops it (SIGTERM) and removes its temp data folder. */
  close(): Promise<void>;
}

/**
 * The environment of a server that delivers its events to a receiver on this machine whose certificate is
 * `certFile` (the contract suite's webhooks phase's): loopback allowed as a webhook target, that
 * certificate trusted. Nothing else: the server delivers as deployed.
 */
export function deliveringTo(certFile: string): Record<string, string> {
  return { PLATFORM_WEBHOOK_ALLOWLIST: '127.0.0.1/32', PLATFORM_WEBHOOK_CA_FILE: certFile };
}

export async function startReferenceServer(
  cli: string,
  options: ReferenceServerOptions = {},
): Promise<ReferenceServer> {
  const port = await freePort();
  const { tls } = options;
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'warn',
    PLATFORM_BOOTSTRAP: 'false',
    PLATFORM_PUBLIC_URL: url,
    ...options.env,
  };
  if (tls) Object.assign(env, { PLATFORM_TLS_CERT: tls.certFile, PLATFORM_TLS_KEY: tls.keyFile });
  const dataDir = options.env?.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'reference-server-'));
  if (dataDir) {
    env.PLATFORM_DATA_DIR = dataDir;
    delete env.DATABASE_URL;
  }
  const removeData = () => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const server = await startProcess(
    'the reference server',
    process.execPath,
    [cli, 'serve', '--port', String(port), '--host', '127.0.0.1'],
    {
      env,
      ready: tls ? () => answersOverTls(`${url}/readyz`, tls.cert) : `${url}/readyz`,
      onLine: options.onLine,
    },
  ).catch((error: unknown) => {
    removeData();
    throw error;
  });
  const runCli = async (...args: string[]) =>
    (await promisify(execFile)(process.execPath, [cli, ...args], { env })).stdout;
  return {
    url,
    async createClient(instance, scopes) {
      const created = await runCli(
        'clients',
        'create',
        '--instance',
        instance,
        '--scopes',
        scopes.join(','),
        '--json',
      );
      return JSON.parse(created) as { clientId: string; clientSecret: string };
    },
    async deleteClient(clientId) {
      await runCli('clients', 'delete', clientId);
    },
    async close() {
      await server.stop();
      removeData();
    },
  };
}

/** Whether the URL answers 2xx over HTTPS with `ca` trusted (fetch cannot be given a CA of its own). */
function answersOverTls(url: string, ca: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get(url, { ca, timeout: 10_000 }, (response) => {
      response.resume();
      resolve((response.statusCode ?? 0) >= 200 && (response.statusCode ?? 0) < 300);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}
