// Runs the service's Node SDK (domo-sdk from npm, a pinned devDependency, unmodified) in a child process,
// as a user's script would: test/sdk/domo_walk.cjs, with the test's certificate trusted the way a user
// trusts one, through NODE_EXTRA_CA_CERTS (the SDK speaks only HTTPS and takes no CA option).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WalkStep } from '@platform-api/test-support';

const walkScript = join(dirname(fileURLToPath(import.meta.url)), '..', 'domo_walk.cjs');

/** One HTTP exchange the SDK made, as node's diagnostics channels saw it. */
export interface NodeExchange {
  method: string;
  url: string;
  status: number;
}

/** A step of the Node SDK's walk: the shared shape, with the HTTP exchanges the call made. */
export interface NodeWalkStep extends WalkStep {
  exchanges: NodeExchange[];
}

export interface NodeWalkRun {
  sdk: string;
  steps: NodeWalkStep[];
}

export interface NodeWalkOptions {
  /** `host:port`: the SDK's `host` (it puts `https://` in front itself). */
  host: string;
  clientId: string;
  clientSecret: string;
  fixtures: Record<string, unknown>;
  /** The PEM file the child trusts through NODE_EXTRA_CA_CERTS; none: only the system's CAs. */
  caFile: string | undefined;
}

/** Runs domo_walk.cjs once and returns what it reports. */
export function runNodeWalk(options: NodeWalkOptions): Promise<NodeWalkRun> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Trust comes from the CA file alone, never from switching verification off.
  delete env.NODE_TLS_REJECT_UNAUTHORIZED;
  delete env.NODE_EXTRA_CA_CERTS;
  if (options.caFile) env.NODE_EXTRA_CA_CERTS = options.caFile;
  // The targets are on loopback: the `request` library would send them to a proxy named in the environment.
  const noProxy = [env.NO_PROXY ?? env.no_proxy, '127.0.0.1', 'localhost'].filter(Boolean).join(',');
  env.NO_PROXY = noProxy;
  env.no_proxy = noProxy;
  // `--name=value`: a client secret may start with `-`.
  const args = [
    walkScript,
    `--host=${options.host}`,
    `--client-id=${options.clientId}`,
    `--client-secret=${options.clientSecret}`,
    `--fixtures=${JSON.stringify(options.fixtures)}`,
  ];
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('DOMO_WALK '));
      if (!line) {
        const output = (stderr + stdout).trim().split('\n').slice(-40).join('\n');
        reject(new Error(`domo_walk.cjs ended (${signal ?? code}) without a report:\n${output}`));
        return;
      }
      resolveRun(JSON.parse(line.slice('DOMO_WALK '.length)) as NodeWalkRun);
    });
  });
}

/** A step's outcome for assertion messages: the error and the requests it made. */
export function describeNodeStep(step: NodeWalkStep | undefined): string {
  if (!step) return 'the walk did not report this step';
  return [
    `step ${step.name}: ${step.ok ? 'ok' : step.error}`,
    ...step.exchanges.map((e) => `  ${e.method} ${e.url} → ${e.status}`),
  ].join('\n');
}
