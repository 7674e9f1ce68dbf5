// A recall run: the instrumented server built once, Schemathesis's venv made ready, the unmutated server
// judged first (both tools must pass it, or their kills mean nothing), then each mutant of the sample.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pythonVenv, selfSignedCertificate } from '@platform-api/test-support';
import { loadClassifications } from './classes.js';
import { type Judged, type JudgeOptions, judge } from './judge.js';
import { instrumentServer, type Mutant } from './mutants.js';
import { contractTestsDir, recallRoot, stateDir } from './paths.js';
import { printReport, type RecallReport, summarize, writeReport } from './report.js';
import { sampleMutants } from './sample.js';
import { buildInstrumentedServer } from './sandbox.js';
import { snapshotSuite } from './suite-snapshot.js';
import { type SchemathesisCommand, ST_ENTRY_POINT } from './tools.js';

export interface RecallOptions {
  /** How many mutants the seeded draw takes (ignored when `select` is given). */
  size: number;
  seed: number;
  /** Minutes after which no further mutant is started: the run reports the ones judged by then. */
  timeBudgetMinutes?: number;
  /** Picks the mutants instead of the draw (the smoke test's few). */
  select?: (all: readonly Mutant[]) => Mutant[];
  reportFile: string;
  /** The instrumented build and the logs (default .state/recall): two runs at once need two. */
  workDir?: string;
  /** The contract-tests package to judge with (default packages/contract-tests), snapshotted at the start. */
  suiteDir?: string;
  log?: (line: string) => void;
}

/**
 * `st` from the venv, built from requirements.txt on first use; throws with the reason when it cannot be.
 * Run as `python -c` on its entry point: the venv is built in another folder and renamed, so the shebang
 * of its bin/st names a python that is gone.
 */
export async function schemathesisCommand(): Promise<SchemathesisCommand> {
  const venv = await pythonVenv({
    dir: join(stateDir, 'schemathesis-venv'),
    requirementsFile: join(recallRoot, 'requirements.txt'),
    check: 'import schemathesis',
  });
  if (!venv.available) throw new Error(`Schemathesis cannot be installed: ${venv.reason}`);
  return { python: venv.python, prefix: ['-c', ST_ENTRY_POINT] };
}

function progressLine(index: number, count: number, judged: Judged): string {
  const m = judged.mutant as Mutant;
  const place = `${m.file}:${m.line} ${m.mutator} ${m.original} → ${m.replacement}`;
  if (judged.startupFailure) return `[${index}/${count}] startup  ${place}`;
  const mark = (failed: boolean | undefined) => (failed ? 'killed  ' : 'survived');
  return `[${index}/${count}] ours ${mark(judged.runs.contractSuite?.failed)} st ${mark(judged.runs.schemathesis?.failed)} ${place}`;
}

/** The unmutated server, then each mutant of the sample until the time budget is spent. */
async function judgeAll(
  sample: Mutant[],
  judgeOptions: JudgeOptions,
  options: RecallOptions,
  started: number,
  log: (line: string) => void,
): Promise<{ baseline: Judged; judged: Judged[] }> {
  const baseline = await judge(undefined, judgeOptions);
  const baselineLine = (tool: 'contractSuite' | 'schemathesis') => {
    const run = baseline.runs[tool];
    return run
      ? `${run.failed ? 'FAILED' : 'passed'} in ${Math.round(run.durationMs / 1000)} s (seed ${run.seed})`
      : 'not run';
  };
  log(
    `baseline (no mutant): contract suite ${baselineLine('contractSuite')}, Schemathesis ${baselineLine('schemathesis')}`,
  );
  if (baseline.startupFailure)
    throw new Error(`recall: the unmutated server did not start: ${baseline.startupFailure}`);
  for (const tool of ['contractSuite', 'schemathesis'] as const) {
    if (baseline.runs[tool]?.failed)
      log(
        `WARNING: ${tool} fails the unmutated server: its kills below are not all the mutants' doing (${baseline.runs[tool]?.logFile})`,
      );
  }
  const judged: Judged[] = [];
  const judgingStarted = Date.now();
  const deadline = started + (options.timeBudgetMinutes ?? Number.POSITIVE_INFINITY) * 60_000;
  for (const [index, mutant] of sample.entries()) {
    // Stop when the next mutant, at the average pace so far, would end past the budget.
    const pace = judged.length > 0 ? (Date.now() - judgingStarted) / judged.length : 0;
    if (Date.now() + pace > deadline) {
      log(
        `time budget of ${options.timeBudgetMinutes} min spent: ${judged.length} of ${sample.length} mutants judged`,
      );
      break;
    }
    const result = await judge(mutant, judgeOptions);
    judged.push(result);
    log(progressLine(index + 1, sample.length, result));
  }
  return { baseline, judged };
}

export async function runRecall(options: RecallOptions): Promise<RecallReport> {
  const log = options.log ?? ((line: string) => console.log(line));
  const started = Date.now();
  const st = await schemathesisCommand();
  const instrumented = await instrumentServer();
  const workDir = options.workDir ?? stateDir;
  const logDir = join(workDir, 'logs');
  rmSync(logDir, { recursive: true, force: true });
  const build = await buildInstrumentedServer(instrumented, workDir);
  const suite = snapshotSuite(options.suiteDir ?? contractTestsDir, workDir);
  const sample = options.select
    ? options.select(instrumented.mutants)
    : sampleMutants(instrumented.mutants, options.size, options.seed);
  log(`recall: ${instrumented.mutants.length} mutants, judging ${sample.length}; logs in ${logDir}`);
  log(
    `contract suite: ${options.suiteDir ?? contractTestsDir} (build ${suite.buildHash}, frozen for this run)`,
  );
  const receiver = selfSignedCertificate();
  const { baseline, judged } = await judgeAll(
    sample,
    { cli: build.cli, st, logDir, suiteBin: suite.bin, receiver },
    options,
    started,
    log,
  ).finally(() => receiver.remove());
  const report: RecallReport = {
    format: 'recall-report/1',
    startedAt: new Date(started).toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1000),
    sample: {
      seed: options.seed,
      size: judged.length,
      drawn: sample.length,
      ofMutants: instrumented.mutants.length,
      selection: options.select
        ? 'chosen by the caller'
        : `seeded draw, seed ${options.seed}${judged.length < sample.length ? `, the first ${judged.length} of ${sample.length} drawn (time budget)` : ''}`,
    },
    suite: { dir: options.suiteDir ?? contractTestsDir, buildHash: suite.buildHash },
    baseline,
    ...summarize(judged, loadClassifications()),
    mutants: judged,
  };
  writeReport(report, options.reportFile);
  printReport(report, log);
  log(`report: ${options.reportFile}`);
  return report;
}
