// One mutant judged: for each tool a fresh server (its own SQLite folder) started with that mutant active,
// two tenants created with its CLI, the tool run against it. A server that does not start (or whose CLI
// cannot create the clients) kills the mutant "by startup": no tool gets the credit.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  deliveringTo,
  type ReferenceServer,
  type SelfSignedCertificate,
  startReferenceServer,
} from '@platform-api/test-support';
import type { Mutant } from './mutants.js';
import {
  runContractSuite,
  runSchemathesis,
  type SchemathesisCommand,
  type Target,
  type ToolName,
  type ToolRun,
} from './tools.js';

export interface Judged {
  /** undefined for the baseline: the unmutated server. */
  mutant: Mutant | undefined;
  /** Why the server could not be used, when it could not. */
  startupFailure: string | undefined;
  runs: Partial<Record<ToolName, ToolRun & { serverAliveAfter: boolean }>>;
}

export interface JudgeOptions {
  cli: string;
  st: SchemathesisCommand;
  /** The contract suite's CLI (a snapshot of its build). */
  suiteBin: string;
  logDir: string;
  /**
   * The webhook receiver's certificate: each server trusts it and may deliver to loopback, as a team that
   * tests its webhooks deploys it; the suite receives there (its README's --webhooks-cert/--webhooks-key).
   * Schemathesis has no receiver, so it gets nothing of it.
   */
  receiver: SelfSignedCertificate;
}

const DEV_SCOPES = ['user', 'data', 'chat'];

/** The servers running now, so that an interrupted run stops them (cli.ts, on SIGINT and SIGTERM). */
const liveServers = new Set<ReferenceServer>();

export async function closeLiveServers(): Promise<void> {
  await Promise.allSettled([...liveServers].map((server) => server.close()));
}

async function alive(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

interface Started {
  server: ReferenceServer;
  target: Target;
}

async function startServer(
  options: JudgeOptions,
  mutant: Mutant | undefined,
  serverLog: string[],
): Promise<Started> {
  const env: Record<string, string> = {
    // The suite and Schemathesis each send thousands of requests a minute: the default limit (1200 per
    // minute) would make both wait, not find more.
    PLATFORM_RATE_LIMIT: '0',
    ...deliveringTo(options.receiver.certFile),
  };
  if (mutant) env.__STRYKER_ACTIVE_MUTANT__ = mutant.id;
  const server = await startReferenceServer(options.cli, { env, onLine: (line) => serverLog.push(line) });
  liveServers.add(server);
  try {
    const tenant = await server.createClient('dev', DEV_SCOPES);
    const otherTenant = await server.createClient('other', DEV_SCOPES);
    return { server, target: { url: server.url, tenant, otherTenant } };
  } catch (error) {
    liveServers.delete(server);
    await server.close();
    throw error;
  }
}

async function judgeWith(
  tool: ToolName,
  mutant: Mutant | undefined,
  options: JudgeOptions,
): Promise<ToolRun & { serverAliveAfter: boolean }> {
  const name = `${mutant ? `mutant-${mutant.id}` : 'baseline'}-${tool}`;
  const serverLog: string[] = [];
  const writeServerLog = () =>
    writeFileSync(join(options.logDir, `${name}-server.log`), serverLog.join('\n'));
  const started = await startServer(options, mutant, serverLog).catch((error: unknown) => {
    writeServerLog();
    throw error;
  });
  const { server, target } = started;
  try {
    const logFile = join(options.logDir, `${name}.log`);
    const run =
      tool === 'contractSuite'
        ? await runContractSuite(target, options.suiteBin, options.receiver, logFile)
        : await runSchemathesis(target, options.st, logFile);
    return { ...run, serverAliveAfter: await alive(target.url) };
  } finally {
    liveServers.delete(server);
    await server.close();
    writeServerLog();
  }
}

/** Both tools at once, each on its own server: two cores, and most of a run is waiting on the other side. */
export async function judge(mutant: Mutant | undefined, options: JudgeOptions): Promise<Judged> {
  mkdirSync(options.logDir, { recursive: true });
  const tools: ToolName[] = ['contractSuite', 'schemathesis'];
  const settled = await Promise.allSettled(tools.map((tool) => judgeWith(tool, mutant, options)));
  const runs: Judged['runs'] = {};
  const failures: string[] = [];
  settled.forEach((outcome, index) => {
    const tool = tools[index] as ToolName;
    if (outcome.status === 'fulfilled') runs[tool] = outcome.value;
    else
      failures.push(
        String((outcome.reason as Error).message ?? outcome.reason)
          .split('\n')
          .slice(0, 4)
          .join(' '),
      );
  });
  // One server that would not start decides it: the same build and mutant, so the other run is not judged.
  if (failures.length > 0) return { mutant, startupFailure: failures[0], runs: {} };
  return { mutant, startupFailure: undefined, runs };
}
