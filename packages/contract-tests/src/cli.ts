// contract-tests: the suite against any server of either API, from the command line.
//   contract-tests platform --base-url URL --client-id ID --client-secret SECRET [options]
//   contract-tests site --base-url URL --user USER --app-password PASSWORD [options]
//   contract-tests replay REPORT.json CASE-ID [credentials] (see replay.ts)
// Exit code 0 when every check passed; 1 when a check failed; 2 for wrong arguments; 3 when the run stopped
// (the target could not be used, stopped answering, or throttled it past its budget).
import { parseArgs } from 'node:util';
import { type CliIo, processIo } from './command-line.js';
import { valuesJoined } from './flags.js';
import { REPLAY_USAGE, runReplay } from './replay.js';
import { applyBaseline } from './run/baseline.js';
import {
  CHECK_NAMES,
  CHECKS,
  type CheckName,
  PHASES,
  type PhaseName,
  PROFILES,
  type ProfileName,
} from './run/checks.js';
import { ReportFileError, readReportFile, writeReportFile } from './run/report-file.js';
import { formatMatrix, formatSummary, succeeded, writeReports } from './run/reports.js';
import { DEFAULT_MAX_EXAMPLES, randomSeed, runContractTests } from './run/runner.js';
import type { RunReport } from './run/session.js';
import { TARGETS } from './targets/index.js';
import {
  type FlagOption,
  type FlagValues,
  stringFlag,
  TargetUnusable,
  UsageError,
} from './targets/target.js';
import { DEFAULT_THROTTLE_BUDGET_MS, Throttle } from './throttle.js';

const USAGE = `Usage:
${Object.values(TARGETS)
  .map((target) => target.usage)
  .join('\n')}
Options of both:
  --profile stateless   the phases and checks a mock that keeps no state can satisfy (Prism; apps/mock
                        --stateless); --phases/--checks win
  --phases LIST         ${PHASES.join(',')} (default: all the API has)
  --checks LIST         checks to run (default: all; --list-checks shows them)
  --exclude-checks LIST checks not to run; CHECK:OPERATION_ID leaves a check out on one operation only
  --max-examples N      generated requests per operation and direction in the fuzz phase (default ${DEFAULT_MAX_EXAMPLES})
  --seed S              the seed of every generated request (default: random; printed)
  --max-response-time S fail max_response_time for an answer slower than S seconds (default: not checked)
  --rate-limit N/UNIT   send at most N requests per s, m or h (default: as fast as the target allows)
  --throttle-budget S   seconds the run may wait out the target's rate limit in all (default ${DEFAULT_THROTTLE_BUDGET_MS / 1000})
  --allow-nul false     generate no U+0000 in strings (for servers whose spec forbids it in prose)
  --junit FILE          write a JUnit XML report
  --html FILE           write a self-contained HTML report
  --report FILE         write the report as JSON: every failure with its case id and request, secrets left out
                        (contract-tests replay sends one again)
  --baseline FILE       an earlier --report: its failures are known, not counted; only new ones fail the run
  --matrix              print the operation × status matrix
  --matrix-csv FILE     write it as CSV (operation, status, documented, seen, target)
  --list-checks         print the checks and what each asserts
Send a failure of a --report file again (exit 0 fixed, 1 still failing, 2 usage, 3 target unusable):
${REPLAY_USAGE}`;

/** The flags every API shares; each target adds its own (targets/). */
const SHARED_OPTIONS = {
  'base-url': { type: 'string' },
  profile: { type: 'string' },
  phases: { type: 'string' },
  checks: { type: 'string' },
  'exclude-checks': { type: 'string' },
  'max-examples': { type: 'string' },
  seed: { type: 'string' },
  'max-response-time': { type: 'string' },
  'rate-limit': { type: 'string' },
  'throttle-budget': { type: 'string' },
  'allow-nul': { type: 'string', default: 'true' },
  junit: { type: 'string' },
  html: { type: 'string' },
  report: { type: 'string' },
  baseline: { type: 'string' },
  matrix: { type: 'boolean', default: false },
  'matrix-csv': { type: 'string' },
  'list-checks': { type: 'boolean', default: false },
  help: { type: 'boolean', default: false, short: 'h' },
} as const satisfies Record<string, FlagOption>;

const OPTIONS: Record<string, FlagOption> = Object.assign(
  {},
  SHARED_OPTIONS,
  ...Object.values(TARGETS).map((target) => target.options),
);

export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}

async function run(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === 'replay') return runReplay(argv.slice(1), io);
  let parsed: { values: FlagValues; positionals: string[] };
  try {
    parsed = parseArgs({ args: valuesJoined(argv, OPTIONS), options: OPTIONS, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (values['list-checks']) {
    for (const { name, description } of Object.values(CHECKS)) io.out(`${name.padEnd(30)} ${description}`);
    return 0;
  }
  const [api, ...extra] = positionals;
  const target = api === undefined || !Object.hasOwn(TARGETS, api) ? undefined : TARGETS[api]!;
  if (!target) throw new UsageError(`Name the API: ${Object.keys(TARGETS).join(' or ')}`);
  if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(' ')}`);
  const foreign = Object.values(TARGETS)
    .filter((other) => other !== target)
    .flatMap((other) => Object.keys(other.options))
    .filter((name) => !(name in target.options) && argv.some((arg) => arg.split('=')[0] === `--${name}`));
  if (foreign.length > 0)
    throw new UsageError(`Not an option of ${target.api}: ${foreign.map((name) => `--${name}`).join(', ')}`);
  const missing = target.required.filter((name) => !values[name]);
  if (missing.length > 0) throw new UsageError(`Missing ${missing.map((name) => `--${name}`).join(', ')}`);

  const profileName = stringFlag(values, 'profile');
  if (profileName !== undefined && !Object.hasOwn(PROFILES, profileName))
    throw new UsageError(`Unknown profile: ${profileName} (known: ${Object.keys(PROFILES).join(', ')})`);
  const profile = profileName === undefined ? undefined : PROFILES[profileName as ProfileName];
  const phases: readonly PhaseName[] | undefined =
    (list(stringFlag(values, 'phases'), PHASES, 'phase') as PhaseName[] | undefined) ?? profile?.phases;
  const selected: readonly CheckName[] =
    list(stringFlag(values, 'checks'), CHECK_NAMES, 'check') ?? profile?.checks ?? CHECK_NAMES;
  // A plain name leaves a check out everywhere; `check:operationId` on that operation only.
  const exclusions: string[] = list(stringFlag(values, 'exclude-checks'), CHECK_NAMES, 'check', true) ?? [];
  const excluded = new Set(exclusions.filter((item) => !item.includes(':')));
  const exemptions = exclusions.filter((item) => item.includes(':'));
  const seedFlag = stringFlag(values, 'seed');
  const seed = seedFlag === undefined ? randomSeed() : integer(seedFlag, '--seed');
  const maxExamplesFlag = stringFlag(values, 'max-examples');
  const maxExamples =
    maxExamplesFlag === undefined ? DEFAULT_MAX_EXAMPLES : integer(maxExamplesFlag, '--max-examples');
  const maxResponseTimeFlag = stringFlag(values, 'max-response-time');
  const maxResponseTimeMs =
    maxResponseTimeFlag === undefined ? undefined : seconds(maxResponseTimeFlag, '--max-response-time');
  const budgetFlag = stringFlag(values, 'throttle-budget');
  const throttle = new Throttle({
    budgetMs:
      budgetFlag === undefined ? DEFAULT_THROTTLE_BUDGET_MS : integer(budgetFlag, '--throttle-budget') * 1000,
    minIntervalMs: rateLimit(stringFlag(values, 'rate-limit')),
  });
  const allowNul = stringFlag(values, 'allow-nul');
  if (allowNul !== 'true' && allowNul !== 'false') throw new UsageError('--allow-nul is true or false');
  const baselineFile = stringFlag(values, 'baseline');
  const baseline = baselineFile === undefined ? undefined : readBaseline(baselineFile);
  const baseUrl = stringFlag(values, 'base-url')!.replace(/\/+$/, '');
  io.out(`contract-tests ${target.api} against ${baseUrl} — seed ${seed}`);

  const log = (line: string) => io.out(`  ${line}`);
  let report: RunReport;
  try {
    const { inapplicableChecks, ...run } = await target.connect(values, { baseUrl, throttle, phases, log });
    const checks = selected.filter((check) => !excluded.has(check) && !inapplicableChecks?.has(check));
    // max_response_time is asked for by its budget, as in Schemathesis, not by --checks.
    if (
      maxResponseTimeMs !== undefined &&
      !excluded.has('max_response_time') &&
      !checks.includes('max_response_time')
    )
      checks.push('max_response_time');
    report = await runContractTests({
      ...run,
      api: target.api,
      target: baseUrl,
      phases,
      checks,
      seed,
      maxExamples,
      maxResponseTimeMs,
      allowNul: allowNul === 'true',
      exemptions,
      log,
    });
  } catch (error) {
    if (!(error instanceof TargetUnusable)) throw error;
    report = {
      api: target.api,
      target: baseUrl,
      seed,
      startedAt: new Date().toISOString(),
      durationMs: 0,
      phases: [],
      requests: 0,
      fatal: error.message,
      throttling: { throttled: throttle.throttled, waitedMs: throttle.waitedMs },
      results: [],
      matrix: [],
    };
  }
  if (baseline) report = applyBaseline(report, baseline, baselineFile!);
  if (values.matrix) io.out(`\nStatus matrix (status:count, ! = undocumented)\n${formatMatrix(report)}`);
  // The header went out when the run started.
  io.out(`\n${formatSummary(report, { header: false })}`);
  writeReports(report, {
    junit: stringFlag(values, 'junit'),
    html: stringFlag(values, 'html'),
    matrix: stringFlag(values, 'matrix-csv'),
  });
  const reportFile = stringFlag(values, 'report');
  if (reportFile) writeReportFile(reportFile, report);
  return report.fatal ? 3 : succeeded(report) ? 0 : 1;
}

function list<T extends string>(
  value: string | undefined,
  known: readonly T[],
  what: string,
  perOperation = false,
): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  const unknown = items.filter(
    (item) => !(known as readonly string[]).includes(perOperation ? item.split(':')[0]! : item),
  );
  if (unknown.length > 0)
    throw new UsageError(
      `Unknown ${what}${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (known: ${known.join(', ')})`,
    );
  return items as T[];
}

function readBaseline(file: string) {
  try {
    return readReportFile(file);
  } catch (error) {
    if (error instanceof ReportFileError) throw new UsageError(`--baseline: ${error.message}`);
    throw error;
  }
}

function integer(value: string, name: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${name} must be a whole number, not ${value}`);
  return Number(value);
}

/** A duration in seconds (`1.5`), in milliseconds. */
function seconds(value: string, name: string): number {
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) === 0)
    throw new UsageError(`${name} must be a number of seconds above 0, not ${value}`);
  return Number(value) * 1000;
}

/** `--rate-limit 10/s` (or `/m`, `/h`; Schemathesis's form) as the least time between two requests. */
function rateLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\/([smh])$/.exec(value.trim());
  if (!match || Number(match[1]) === 0)
    throw new UsageError(`--rate-limit must look like 10/s, 600/m or 3600/h, not ${value}`);
  const unitMs = { s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h'];
  return unitMs / Number(match[1]);
}
