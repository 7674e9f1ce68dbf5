#!/usr/bin/env node
// `npm run recall [-- --size N --seed S --report FILE]`: the fixed sample judged by both tools.
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { closeLiveServers } from './judge.js';
import { stateDir } from './paths.js';
import { killRunning } from './processes.js';
import { reprintReport } from './report.js';
import { runRecall } from './run.js';
import { DEFAULT_SAMPLE_SEED } from './sample.js';

/** The sample that fits 30 minutes on a 2-core machine (about 70 s a mutant on a loaded machine; docs/guides/recall.md). */
export const DEFAULT_SAMPLE_SIZE = 24;

/** A full run stays within half an hour on a loaded machine: the mutants not started by then are left out. */
export const DEFAULT_TIME_BUDGET_MINUTES = 30;

const usage = `usage: recall [--size N] [--seed S] [--time-budget MIN] [--report FILE] [--suite DIR] [--work-dir DIR]
       recall --reprint FILE
  --size N           mutants in the sample (default ${DEFAULT_SAMPLE_SIZE})
  --seed S           the sample's seed (default ${DEFAULT_SAMPLE_SEED}: the figures in docs/guides/recall.md)
  --time-budget MIN  no further mutant starts after MIN minutes (default ${DEFAULT_TIME_BUDGET_MINUTES}); the report says how many were judged
  --report FILE      the JSON report (default <work dir>/report.json)
  --suite DIR        the contract-tests package to judge with (default packages/contract-tests, built)
  --work-dir DIR     the instrumented build, the suite's snapshot and the logs (default .state/recall): two runs at once need two
  --reprint FILE     an earlier report printed again with survivors.yaml as it is now (the file updated)`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      size: { type: 'string' },
      seed: { type: 'string' },
      report: { type: 'string' },
      suite: { type: 'string' },
      'time-budget': { type: 'string' },
      'work-dir': { type: 'string' },
      reprint: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  if (values.reprint) {
    reprintReport(values.reprint);
    return 0;
  }
  const size = Number(values.size ?? DEFAULT_SAMPLE_SIZE);
  const seed = Number(values.seed ?? DEFAULT_SAMPLE_SEED);
  const timeBudgetMinutes = Number(values['time-budget'] ?? DEFAULT_TIME_BUDGET_MINUTES);
  if (!Number.isInteger(size) || size < 1 || !Number.isInteger(seed) || !(timeBudgetMinutes > 0)) {
    console.error(usage);
    return 2;
  }
  // A mutant that keeps the server from starting shows within seconds: do not wait the default 3 minutes.
  process.env.PLATFORM_START_TIMEOUT_MS ??= '60000';
  const workDir = values['work-dir'] ? resolve(values['work-dir']) : stateDir;
  const reportFile = values.report ?? join(workDir, 'report.json');
  await runRecall({
    size,
    seed,
    reportFile,
    workDir,
    timeBudgetMinutes,
    ...(values.suite ? { suiteDir: resolve(values.suite) } : {}),
  });
  return 0;
}

// Ctrl-C or a stop: no server or tool of the run is left behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killRunning();
    void closeLiveServers().finally(() => process.exit(130));
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
