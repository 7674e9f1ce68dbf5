// The run's outcome: each tool's mutation score over the mutants a server ran with, the mutants killed
// only by a server that would not start, the survivors with their class, and the JSON report.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Classification, loadClassifications } from './classes.js';
import type { Judged } from './judge.js';
import type { Mutant } from './mutants.js';
import type { ToolName } from './tools.js';

export interface Score {
  killed: number;
  total: number;
  percent: number;
}

export interface Survivor {
  mutant: Mutant;
  /** "unclassified" until the table in survivors.yaml has it. */
  class: Classification['class'] | 'unclassified';
  why: string;
  killedBySchemathesis: boolean;
}

export interface RecallReport {
  format: 'recall-report/1';
  startedAt: string;
  durationSeconds: number;
  /** size: mutants judged; drawn: mutants the draw gave (more when the time budget stopped the run). */
  sample: { seed: number; size: number; drawn: number; ofMutants: number; selection: string };
  /** The contract suite's package and the hash of the build that judged every mutant. */
  suite: { dir: string; buildHash: string };
  baseline: Judged;
  scores: Record<ToolName, Score>;
  killedByStartup: Mutant[];
  /** Mutants the contract suite did not kill (those Schemathesis killed included), each with a class. */
  ourSurvivors: Survivor[];
  mutants: Judged[];
}

const score = (killed: number, total: number): Score => ({
  killed,
  total,
  percent: total === 0 ? 0 : Math.round((1000 * killed) / total) / 10,
});

export function summarize(
  judged: Judged[],
  classifications: Map<string, Classification>,
): Pick<RecallReport, 'scores' | 'killedByStartup' | 'ourSurvivors'> {
  const ran = judged.filter((j) => j.startupFailure === undefined);
  const killedBy = (tool: ToolName) => ran.filter((j) => j.runs[tool]?.failed).length;
  const ourSurvivors = ran
    .filter((j) => j.mutant && !j.runs.contractSuite?.failed)
    .map((j): Survivor => {
      const mutant = j.mutant as Mutant;
      const killedBySchemathesis = Boolean(j.runs.schemathesis?.failed);
      const known = classifications.get(mutant.key);
      if (known) return { mutant, ...known, killedBySchemathesis };
      if (killedBySchemathesis) {
        return { mutant, class: 'a check we lack', why: 'Schemathesis kills it', killedBySchemathesis };
      }
      return { mutant, class: 'unclassified', why: '', killedBySchemathesis };
    });
  return {
    scores: {
      contractSuite: score(killedBy('contractSuite'), ran.length),
      schemathesis: score(killedBy('schemathesis'), ran.length),
    },
    killedByStartup: judged
      .filter((j) => j.startupFailure !== undefined && j.mutant)
      .map((j) => j.mutant as Mutant),
    ourSurvivors,
  };
}

const where = (m: Mutant) => `${m.file}:${m.line} ${m.mutator}: ${m.original} → ${m.replacement}`;

export function printReport(report: RecallReport, write: (line: string) => void = console.log): void {
  const { contractSuite: ours, schemathesis: theirs } = report.scores;
  write('');
  write(
    `RECALL on ${report.sample.size} of ${report.sample.ofMutants} StrykerJS mutants (${report.sample.selection})`,
  );
  write(`  contract suite: ${ours.killed}/${ours.total} killed (${ours.percent}%)`);
  write(`  Schemathesis:   ${theirs.killed}/${theirs.total} killed (${theirs.percent}%)`);
  write(`  difference:     ${Math.round((ours.percent - theirs.percent) * 10) / 10} points`);
  write(`  killed by startup (no tool's credit, not in the totals): ${report.killedByStartup.length}`);
  for (const mutant of report.killedByStartup) write(`    ${where(mutant)}`);
  const both = report.ourSurvivors.filter((s) => !s.killedBySchemathesis);
  write(`SURVIVORS both tools miss: ${both.length}`);
  for (const s of both) write(`  [${s.class}] ${where(s.mutant)}${s.why ? `\n      ${s.why}` : ''}`);
  const theirsOnly = report.ourSurvivors.filter((s) => s.killedBySchemathesis);
  write(`Killed by Schemathesis only: ${theirsOnly.length}`);
  for (const s of theirsOnly) write(`  [${s.class}] ${where(s.mutant)}${s.why ? `\n      ${s.why}` : ''}`);
  const unclassified = report.ourSurvivors.filter((s) => s.class === 'unclassified').length;
  if (unclassified > 0)
    write(`${unclassified} survivors unclassified: add them to packages/recall/survivors.yaml`);
  write(`run time ${Math.round(report.durationSeconds / 6) / 10} min`);
}

export function writeReport(report: RecallReport, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

/** An earlier report judged again by the survivors table as it is now: reviewing needs no new run. */
export function reprintReport(file: string): void {
  const report = JSON.parse(readFileSync(file, 'utf8')) as RecallReport;
  if (report.format !== 'recall-report/1') throw new Error(`${file} is no recall-report/1`);
  const updated = { ...report, ...summarize(report.mutants, loadClassifications()) };
  writeReport(updated, file);
  printReport(updated);
}
