// contract-tests: the suite against any server of either API, from the command line.
//   contract-tests platform --base-url URL --client-id ID --client-secret SECRET [options]
//   contract-tests site --base-url URL --user USER --app-password PASSWORD [options]
//   contract-tests replay REPORT.json CASE-ID [credentials] (see replay.ts)
// Exit code 0 when every check passed; 1 when a check failed; 2 for wrong arguments; 3 when the run stopped
// (the target could not be used, stopped answering, or throttled it past its budget).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadBundle, type Operation, SpecValidator } from '@platform-api/validator';
import { ContractClient } from './client.js';
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
import {
  DEFAULT_MAX_EXAMPLES,
  describeError,
  type PhaseRunner,
  randomSeed,
  runContractTests,
} from './run/runner.js';
import type { RunReport } from './run/session.js';
import { platformClient, TargetUnusable, webhooksPhase } from './targets/platform.js';
import { siteScenariosPhase } from './targets/site.js';
import { DEFAULT_THROTTLE_BUDGET_MS, Throttle } from './throttle.js';
import { specForVersion } from './versions.js';

const USAGE = `Usage:
  contract-tests platform --base-url URL --client-id ID --client-secret SECRET [--scopes "user data chat"]
      [--other-client-id ID --other-client-secret SECRET] [--include-internal]
      [--webhooks-cert FILE --webhooks-key FILE [--webhooks-host HOST]]
  contract-tests site --base-url URL --user USER --app-password PASSWORD [--wp-version 7.1.4]
Options of both:
  --profile stateless   the phases and checks a stateless mock (Prism) can satisfy (--phases/--checks win)
  --phases LIST         ${PHASES.join(',')} (default: all the API has)
  --checks LIST         checks to run (default: all; --list-checks shows them)
  --exclude-checks LIST checks not to run; CHECK:OPERATION_ID leaves a check out on one operation only
  --max-examples N      generated requests per operation and direction in the fuzz phase (default ${DEFAULT_MAX_EXAMPLES})
  --seed S              the seed of every generated request (default: random; printed)
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

const OPTIONS = {
  'base-url': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  scopes: { type: 'string', default: 'user data chat' },
  'other-client-id': { type: 'string' },
  'other-client-secret': { type: 'string' },
  'include-internal': { type: 'boolean', default: false },
  'webhooks-cert': { type: 'string' },
  'webhooks-key': { type: 'string' },
  'webhooks-host': { type: 'string' },
  user: { type: 'string' },
  'app-password': { type: 'string' },
  'wp-version': { type: 'string' },
  profile: { type: 'string' },
  phases: { type: 'string' },
  checks: { type: 'string' },
  'exclude-checks': { type: 'string' },
  'max-examples': { type: 'string' },
  seed: { type: 'string' },
  'throttle-budget': { type: 'string' },
  'allow-nul': { type: 'string', default: 'true' },
  junit: { type: 'string' },
  html: { type: 'string' },
  report: { type: 'string' },
  baseline: { type: 'string' },
  matrix: { type: 'boolean', default: false },
  'matrix-csv': { type: 'string' },
  'list-checks': { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const;

class UsageError extends Error {}

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

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
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (values['list-checks']) {
    for (const [name, description] of Object.entries(CHECKS)) io.out(`${name.padEnd(30)} ${description}`);
    return 0;
  }
  const [api, ...extra] = positionals;
  if (api !== 'platform' && api !== 'site') throw new UsageError('Name the API: platform or site');
  if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(' ')}`);
  const required =
    api === 'platform' ? ['base-url', 'client-id', 'client-secret'] : ['base-url', 'user', 'app-password'];
  const missing = required.filter((name) => !values[name as keyof typeof values]);
  if (missing.length > 0) throw new UsageError(`Missing ${missing.map((name) => `--${name}`).join(', ')}`);

  if (values.profile !== undefined && !Object.hasOwn(PROFILES, values.profile))
    throw new UsageError(`Unknown profile: ${values.profile} (known: ${Object.keys(PROFILES).join(', ')})`);
  const profile = values.profile === undefined ? undefined : PROFILES[values.profile as ProfileName];
  const phases: readonly PhaseName[] | undefined =
    (list(values.phases, PHASES, 'phase') as PhaseName[] | undefined) ?? profile?.phases;
  const selected: readonly CheckName[] =
    list(values.checks, CHECK_NAMES, 'check') ?? profile?.checks ?? CHECK_NAMES;
  // A plain name leaves a check out everywhere; `check:operationId` on that operation only.
  const exclusions: string[] = list(values['exclude-checks'], CHECK_NAMES, 'check', true) ?? [];
  const excluded = new Set(exclusions.filter((item) => !item.includes(':')));
  const exemptions = exclusions.filter((item) => item.includes(':'));
  const checks = selected.filter((check) => !excluded.has(check));
  const seed = values.seed === undefined ? randomSeed() : integer(values.seed, '--seed');
  const maxExamples =
    values['max-examples'] === undefined
      ? DEFAULT_MAX_EXAMPLES
      : integer(values['max-examples'], '--max-examples');
  const throttle = new Throttle({
    budgetMs:
      values['throttle-budget'] === undefined
        ? DEFAULT_THROTTLE_BUDGET_MS
        : integer(values['throttle-budget'], '--throttle-budget') * 1000,
  });
  const baseline = values.baseline === undefined ? undefined : readBaseline(values.baseline);
  const baseUrl = values['base-url']!.replace(/\/+$/, '');
  io.out(`contract-tests ${api} against ${baseUrl} — seed ${seed}`);

  let report: RunReport;
  if (!['true', 'false'].includes(values['allow-nul']!)) throw new UsageError('--allow-nul is true or false');
  const allowNul = values['allow-nul'] === 'true';
  const common = {
    target: baseUrl,
    phases,
    checks,
    seed,
    maxExamples,
    allowNul,
    exemptions,
    log: (line: string) => io.out(`  ${line}`),
  };
  try {
    if (api === 'platform') {
      const validator = new SpecValidator(
        loadBundle(values['include-internal'] ? 'platform' : 'platform-public'),
      );
      const credentials = { clientId: values['client-id']!, clientSecret: values['client-secret']! };
      const client = await platformClient(validator, baseUrl, credentials, values.scopes!, throttle);
      let otherTenant: ContractClient | undefined;
      if (values['other-client-id'] && values['other-client-secret']) {
        otherTenant = await platformClient(
          validator,
          baseUrl,
          { clientId: values['other-client-id'], clientSecret: values['other-client-secret'] },
          values.scopes!,
          throttle,
        );
      }
      const phaseRunners: Partial<Record<PhaseName, PhaseRunner>> = {};
      if (values['webhooks-cert'] && values['webhooks-key'] && values['include-internal']) {
        phaseRunners.webhooks = webhooksPhase({
          tls: {
            cert: readFileSync(values['webhooks-cert'], 'utf8'),
            key: readFileSync(values['webhooks-key'], 'utf8'),
          },
          host: values['webhooks-host'],
        });
      } else if (!phases || phases.includes('webhooks')) {
        io.out(
          '  webhooks phase not run: it needs --include-internal (the chat operations cause the events) and --webhooks-cert/--webhooks-key (a certificate the server trusts)',
        );
      }
      report = await runContractTests({ ...common, api, validator, client, otherTenant, phaseRunners });
    } else {
      const wpVersion = values['wp-version'];
      if (wpVersion !== undefined && !/^\d+(\.\d+)*$/.test(wpVersion))
        throw new UsageError(`--wp-version must look like 7.1.4, not ${wpVersion}`);
      // Generated requests use only what that version knows (an argument it lacks, it ignores).
      const bundle = loadBundle('site');
      const validator = new SpecValidator(wpVersion ? specForVersion(bundle, wpVersion) : bundle);
      const siteUrl = baseUrl.replace(/\/wp-json$/, '');
      const client = new ContractClient({
        validator,
        baseUrl: `${siteUrl}/wp-json`,
        credentials: { basic: { username: values.user!, password: values['app-password']! } },
        throttle,
      });
      // As the platform's token request does, one request first tells a site that is not there.
      await client
        .send({ method: 'GET', url: `${siteUrl}/wp-json/`, headers: {} })
        .catch((error: unknown) => {
          throw new TargetUnusable(`${siteUrl} does not answer (${describeError(error)})`);
        });
      report = await runContractTests({
        ...common,
        api,
        validator,
        client,
        // Generated requests only read: the site is someone else's server. What writes (and cleans up)
        // is the stateful phase's scenarios.
        include: (operation: Operation) => operation.method === 'get',
        checks: checks.filter((check) => !SITE_EXEMPT.has(check)),
        phaseRunners: {
          stateful: siteScenariosPhase({
            url: siteUrl,
            user: values.user!,
            appPassword: values['app-password']!,
            wpVersion,
          }),
        },
      });
    }
  } catch (error) {
    if (!(error instanceof TargetUnusable)) throw error;
    report = {
      api,
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
  if (baseline) report = applyBaseline(report, baseline, values.baseline!);
  if (values.matrix) io.out(`\nStatus matrix (status:count, ! = undocumented)\n${formatMatrix(report)}`);
  // The header went out when the run started.
  io.out(`\n${formatSummary(report, { header: false })}`);
  writeReports(report, { junit: values.junit, html: values.html, matrix: values['matrix-csv'] });
  if (values.report) writeReportFile(values.report, report);
  return report.fatal ? 3 : succeeded(report) ? 0 : 1;
}

/**
 * Checks that do not apply to WordPress as it is: it answers a method a route lacks with 404
 * rest_no_route (not 405), and refuses schema-valid combinations its schema cannot express
 * (orderby=relevance without search) with 400.
 */
const SITE_EXEMPT = new Set<CheckName>(['unsupported_method', 'positive_data_acceptance']);

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
