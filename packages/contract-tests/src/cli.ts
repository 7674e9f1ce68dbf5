// contract-tests: the suite against any server of either API, from the command line.
//   contract-tests platform --base-url URL --client-id ID --client-secret SECRET [options]
//   contract-tests site --base-url URL --user USER --app-password PASSWORD [options]
//   contract-tests replay REPORT.json CASE-ID [credentials] (see replay.ts)
// Exit code 0 when every check passed; 1 when a check failed; 2 for wrong arguments; 3 when the run stopped
// (the target could not be used, stopped answering, or throttled it past its budget).
import {
  boolean,
  type ConfigOf,
  integer,
  list,
  matching,
  oneOf,
  option,
  optionsHelp,
  optionsOf,
  path,
  seconds,
  switchFlag,
  text,
} from '@platform-api/cli-options';
import { type CliIo, commandLine, processIo, UsageError } from './command-line.js';
import { REPLAY_USAGE, runReplay } from './replay.js';
import { applyBaseline } from './run/baseline.js';
import { CHECK_NAMES, CHECKS, type CheckName, PHASES, PROFILES } from './run/checks.js';
import { ReportFileError, readReportFile, writeReportFile } from './run/report-file.js';
import { formatMatrix, formatSummary, succeeded, writeReports } from './run/reports.js';
import { type RunOptions, randomSeed, runContractTests } from './run/runner.js';
import { DEFAULT_MAX_EXAMPLES, type RunReport } from './run/session.js';
import { TARGETS } from './targets/index.js';
import { type Target, TargetUnusable } from './targets/target.js';
import { DEFAULT_THROTTLE_BUDGET_MS, Throttle } from './throttle.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/** The options every API shares, each declared once; each target adds its own (targets/). */
export const RUN_OPTIONS = {
  baseUrl: option({
    flag: 'base-url',
    parser: text().map((url) => url.replace(/\/+$/, '')),
    help: 'the server under test',
  }),
  profile: option({
    flag: 'profile',
    parser: oneOf(Object.keys(PROFILES) as Array<keyof typeof PROFILES>),
    help: 'the phases and checks a mock that keeps no state can satisfy (Prism; apps/mock --stateless); --phases/--checks win',
  }),
  phases: option({
    flag: 'phases',
    parser: list(oneOf(PHASES), `phases among ${PHASES.join(', ')}, separated by commas`),
    help: 'the phases to run (default: all the API has)',
  }),
  checks: option({
    flag: 'checks',
    parser: list(oneOf(CHECK_NAMES), 'checks separated by commas (--list-checks shows them)'),
    help: 'the checks to run (default: all)',
  }),
  excludeChecks: option({
    flag: 'exclude-checks',
    parser: list(
      matching(new RegExp(`^(${CHECK_NAMES.join('|')})(:.+)?$`), 'a check'),
      'checks or CHECK:OPERATION_ID separated by commas (--list-checks shows them)',
    ),
    help: 'checks not to run; CHECK:OPERATION_ID leaves a check out on one operation only',
  }),
  maxExamples: option({
    flag: 'max-examples',
    parser: integer(1, 1_000_000),
    default: String(DEFAULT_MAX_EXAMPLES),
    help: "generated requests per operation and direction in the fuzz phase, each sent once; the stateful phase's chains per create grow with it (3 at the default)",
  }),
  seed: option({
    flag: 'seed',
    parser: integer(0, Number.MAX_SAFE_INTEGER),
    default: { shown: 'random, printed', from: randomSeed },
    help: 'the seed of every generated request',
  }),
  maxResponseTimeMs: option({
    flag: 'max-response-time',
    parser: seconds({ aboveZero: true }),
    help: 'fail max_response_time for an answer slower than this many seconds (default: not checked)',
  }),
  rateLimitMs: option({
    flag: 'rate-limit',
    parser: matching(/^0*[1-9]\d*\/[smh]$/, 'N requests per s, m or h: 10/s, 600/m, 3600/h').map((rate) => {
      const [count = '1', unit] = rate.split('/');
      return UNIT_MS[unit as keyof typeof UNIT_MS] / Number(count);
    }),
    help: 'send at most N requests per s, m or h (default: as fast as the target allows)',
  }),
  throttleBudgetMs: option({
    flag: 'throttle-budget',
    parser: integer(0, 1_000_000).map((budget) => budget * 1000),
    default: String(DEFAULT_THROTTLE_BUDGET_MS / 1000),
    help: "seconds the run may wait out the target's rate limit in all",
  }),
  allowNul: option({
    flag: 'allow-nul',
    parser: boolean(),
    default: 'true',
    help: 'false: generate no U+0000 in strings (for servers whose spec forbids it in prose)',
  }),
  junit: option({ flag: 'junit', parser: path(), help: 'write a JUnit XML report' }),
  html: option({ flag: 'html', parser: path(), help: 'write a self-contained HTML report' }),
  report: option({
    flag: 'report',
    parser: path(),
    help: 'write the report as JSON: every failure with its case id and request, secrets left out (contract-tests replay sends one again)',
  }),
  baseline: option({
    flag: 'baseline',
    parser: path(),
    help: 'an earlier --report: its failures are known, not counted; only new ones fail the run',
  }),
  matrix: option({ flag: 'matrix', parser: switchFlag(), help: 'print the operation × status matrix' }),
  matrixCsv: option({
    flag: 'matrix-csv',
    parser: path(),
    help: 'write it as CSV (operation, status, documented, seen, target)',
  }),
};

/** What the command reads itself, beside the options of a run. */
const LIST_CHECKS = { 'list-checks': { type: 'boolean' } } as const;

export const USAGE = `Usage:
${Object.values(TARGETS)
  .map((target) => `${target.synopsis}\n${optionsHelp(target.options)}`)
  .join('\n')}
Options of both:
${optionsHelp(RUN_OPTIONS)}
  --list-checks              print the checks and what each asserts
  --help, -h                 print this usage
Send a failure of a --report file again (exit 0 fixed, 1 still failing, 2 usage, 3 target unusable):
${REPLAY_USAGE}`;

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
  const [api, ...args] = argv;
  const target = api !== undefined && Object.hasOwn(TARGETS, api) ? TARGETS[api] : undefined;
  const declaration = { ...RUN_OPTIONS, ...target?.options };
  const line = commandLine(target ? args : argv, declaration, LIST_CHECKS);
  if (line.help) {
    io.out(USAGE);
    return 0;
  }
  if (line.given.has('list-checks')) {
    for (const { name, description } of Object.values(CHECKS)) io.out(`${name.padEnd(30)} ${description}`);
    return 0;
  }
  if (!target) throw new UsageError(`Name the API: ${Object.keys(TARGETS).join(' or ')}`);
  const flagsOf = (other: Target) => optionsOf(other.options).map((declared) => declared.spec.flag);
  const own = new Set(flagsOf(target));
  const foreign = Object.values(TARGETS)
    .filter((other) => other !== target)
    .flatMap(flagsOf)
    .filter((flag) => line.given.has(flag) && !own.has(flag));
  if (foreign.length > 0)
    throw new UsageError(`Not an option of ${target.api}: ${foreign.map((flag) => `--${flag}`).join(', ')}`);
  // A foreign flag's value is left over as an argument: the foreign flag is what to report.
  if (line.positionals.length > 0)
    throw new UsageError(`Unexpected arguments: ${line.positionals.join(' ')}`);
  const options = line.read();
  const missing = [RUN_OPTIONS.baseUrl, ...target.required].filter(
    (required) => !line.given.has(required.spec.flag),
  );
  if (missing.length > 0)
    throw new UsageError(`Missing ${missing.map((required) => `--${required.spec.flag}`).join(', ')}`);
  return runTarget(target, options, io);
}

type RunConfig = ConfigOf<typeof RUN_OPTIONS>;

/** One run of `target` as the options say; its exit code. */
async function runTarget(target: Target, options: RunConfig, io: CliIo): Promise<number> {
  const baseUrl = options.baseUrl ?? '';
  const baseline = options.baseline === undefined ? undefined : readBaseline(options.baseline);
  const throttle = new Throttle({ budgetMs: options.throttleBudgetMs, minIntervalMs: options.rateLimitMs });
  const profile = options.profile === undefined ? undefined : PROFILES[options.profile];
  const phases = options.phases.length > 0 ? options.phases : profile?.phases;
  io.out(`contract-tests ${target.api} against ${baseUrl} — seed ${options.seed}`);
  const log = (line: string) => io.out(`  ${line}`);
  let report: RunReport;
  try {
    // The options were read with the target's own declaration (run), which its connect reads back.
    const { inapplicableChecks, ...run } = await target.connect(options as never, {
      baseUrl,
      throttle,
      phases,
      log,
    });
    report = await runContractTests({
      ...run,
      api: target.api,
      target: baseUrl,
      phases,
      ...selectedChecks(options, inapplicableChecks),
      seed: options.seed,
      maxExamples: options.maxExamples,
      maxResponseTimeMs: options.maxResponseTimeMs,
      allowNul: options.allowNul,
      log,
    });
  } catch (error) {
    if (!(error instanceof TargetUnusable)) throw error;
    report = {
      api: target.api,
      target: baseUrl,
      seed: options.seed,
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
  if (baseline && options.baseline) report = applyBaseline(report, baseline, options.baseline);
  if (options.matrix) io.out(`\nStatus matrix (status:count, ! = undocumented)\n${formatMatrix(report)}`);
  // The header went out when the run started.
  io.out(`\n${formatSummary(report, { header: false })}`);
  writeReports(report, { junit: options.junit, html: options.html, matrix: options.matrixCsv });
  if (options.report) writeReportFile(options.report, report);
  return report.fatal ? 3 : succeeded(report) ? 0 : 1;
}

/** The checks of a run: --checks (or the profile's, or all) but those excluded or inapplicable. */
function selectedChecks(
  options: RunConfig,
  inapplicable: ReadonlySet<CheckName> | undefined,
): Pick<RunOptions, 'checks' | 'exemptions'> {
  const profile = options.profile === undefined ? undefined : PROFILES[options.profile];
  const selected: readonly CheckName[] =
    options.checks.length > 0 ? options.checks : (profile?.checks ?? CHECK_NAMES);
  // A plain name leaves a check out everywhere; `check:operationId` on that operation only.
  const excluded = new Set(options.excludeChecks.filter((item) => !item.includes(':')));
  const checks = selected.filter((check) => !excluded.has(check) && !inapplicable?.has(check));
  // max_response_time is asked for by its budget, as in Schemathesis, not by --checks.
  if (
    options.maxResponseTimeMs !== undefined &&
    !excluded.has('max_response_time') &&
    !checks.includes('max_response_time')
  )
    checks.push('max_response_time');
  return { checks, exemptions: options.excludeChecks.filter((item) => item.includes(':')) };
}

function readBaseline(file: string) {
  try {
    return readReportFile(file);
  } catch (error) {
    if (error instanceof ReportFileError) throw new UsageError(`--baseline: ${error.message}`);
    throw error;
  }
}
