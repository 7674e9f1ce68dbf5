// The two judges of a mutant, each run as its users run it against a server: the contract suite's CLI as
// its README says (default options, two tenants, a webhook receiver, a random seed it prints), and
// Schemathesis's `st run` with a bearer token and the options written in docs/guides/recall.md.
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { platformBundle, recallRoot } from './paths.js';
import { runLogged } from './processes.js';

/** What `st` runs: its console entry point, with argv[0] as `st` so its messages name it so. */
export const ST_ENTRY_POINT =
  "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'st'; sys.exit(schemathesis())";

export interface SchemathesisCommand {
  python: string;
  prefix: string[];
}

export type ToolName = 'contractSuite' | 'schemathesis';

export interface Credentials {
  clientId: string;
  clientSecret: string;
}

export interface Target {
  url: string;
  tenant: Credentials;
  otherTenant: Credentials;
}

export interface ToolRun {
  /** The run failed (any exit but 0, or killed after its time limit). */
  failed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  seed: string | undefined;
  /** The failures the tool named (check — operation), at most a few. */
  findings: string[];
  logFile: string;
}

/** Seconds: a run beyond this is killed and counts as failed (a mutant that hangs requests is found). */
export const TOOL_TIME_LIMIT_MS = 300_000;

export async function runContractSuite(
  target: Target,
  bin: string,
  receiver: { certFile: string; keyFile: string },
  logFile: string,
): Promise<ToolRun> {
  const args = [
    bin,
    'platform',
    '--base-url',
    target.url,
    '--client-id',
    target.tenant.clientId,
    '--client-secret',
    target.tenant.clientSecret,
    '--other-client-id',
    target.otherTenant.clientId,
    '--other-client-secret',
    target.otherTenant.clientSecret,
    '--webhooks-cert',
    receiver.certFile,
    '--webhooks-key',
    receiver.keyFile,
  ];
  const finished = await runLogged(process.execPath, args, { logFile, timeoutMs: TOOL_TIME_LIMIT_MS });
  const seed = /--seed (\d+)/.exec(finished.output)?.[1] ?? /— seed (\d+)/.exec(finished.output)?.[1];
  // "1) status_code_conformance — createGroup (…)": the check and the operation of each failure.
  const findings = [...finished.output.matchAll(/^\d+\) (\S+) — (\S+)/gm)].map((m) => `${m[1]} — ${m[2]}`);
  return toolRun(finished, seed, findings, logFile);
}

/** A tool's run as the report keeps it: failed on any exit but 0, and its first few distinct findings. */
function toolRun(
  finished: Awaited<ReturnType<typeof runLogged>>,
  seed: string | undefined,
  findings: string[],
  logFile: string,
): ToolRun {
  return {
    failed: finished.exitCode !== 0,
    exitCode: finished.exitCode,
    timedOut: finished.timedOut,
    durationMs: finished.durationMs,
    seed,
    findings: [...new Set(findings)].slice(0, 5),
    logFile,
  };
}

/** Options that keep one Schemathesis run near half a minute here; each one is explained in the guide. */
export const SCHEMATHESIS_OPTIONS = [
  '--max-examples',
  '25',
  '--workers',
  '2',
  '--max-failures',
  '1',
  '--generation-database',
  'none',
];

async function bearerToken(target: Target): Promise<string> {
  const basic = Buffer.from(`${target.tenant.clientId}:${target.tenant.clientSecret}`).toString('base64');
  const response = await fetch(`${target.url}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=user%20data%20chat',
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await response.json().catch(() => ({}))) as { access_token?: unknown };
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new Error(`the token request answered ${response.status}`);
  }
  return body.access_token;
}

export async function runSchemathesis(
  target: Target,
  st: SchemathesisCommand,
  logFile: string,
): Promise<ToolRun> {
  const seed = String(randomInt(1, 2 ** 31));
  let token: string;
  try {
    token = await bearerToken(target);
  } catch (error) {
    // A pipeline that cannot get its token fails before `st run`: the mutant broke the token endpoint.
    return {
      failed: true,
      exitCode: null,
      timedOut: false,
      durationMs: 0,
      seed,
      findings: [`no token: ${(error as Error).message}`],
      logFile,
    };
  }
  const args = [
    ...st.prefix,
    '--config-file',
    join(recallRoot, 'schemathesis.toml'),
    '--no-color',
    'run',
    platformBundle,
    '--url',
    target.url,
    '--header',
    `Authorization: Bearer ${token}`,
    '--seed',
    seed,
    ...SCHEMATHESIS_OPTIONS,
  ];
  const finished = await runLogged(st.python, args, {
    logFile,
    timeoutMs: TOOL_TIME_LIMIT_MS,
    cwd: recallRoot,
  });
  // "- ST202 Schema-valid request rejected" under "___ POST /v1/… ___": the failure codes it found.
  const findings = [...finished.output.matchAll(/^- (ST\d+ [^\n]+)$/gm)].map((m) => m[1] as string);
  return toolRun(finished, seed, findings, logFile);
}
