// `--baseline REPORT`: a run compared with an earlier report counts only the failures that are new. A
// failure is known when the baseline has one of the same defect (check, operation and message without what
// differs between runs: run/cases.ts) — not the same request, so a rerun with another seed that meets the
// same defect through other values still matches it.
import { defectId, defectKey, KNOWN_REASON } from './cases.js';
import { casesOf, type ReportFile } from './report-file.js';
import type { BaselineOutcome, CaseResult, Failure, RunReport } from './session.js';

/**
 * The report with known failures taken out of its results (a result left with none is skipped, with the
 * reason, so it counts neither as failed nor as passed), and what the baseline had that this run no longer
 * shows where it checked.
 */
export function applyBaseline(report: RunReport, baseline: ReportFile, file: string): RunReport {
  const baselineCases = casesOf(baseline);
  const knownKeys = new Set(baselineCases.map(defectKey));
  const known: Failure[] = [];
  const results = report.results.map((result): CaseResult => {
    const old = result.failures.filter((failure) => knownKeys.has(defectKey(failure)));
    if (old.length === 0) return result;
    known.push(...old);
    const fresh = result.failures.filter((failure) => !knownKeys.has(defectKey(failure)));
    if (fresh.length > 0) return { ...result, failures: fresh };
    return { ...result, outcome: 'skipped', failures: [], reason: KNOWN_REASON };
  });

  // Fixed: the check ran on the operation this run and the defect did not show. A defect whose check or
  // operation was not reached (other --phases, a stopped run) is neither fixed nor known.
  const seenKeys = new Set(report.results.flatMap((result) => result.failures).map(defectKey));
  const ran = new Set(
    report.results
      .filter((result) => result.runs > 0)
      .map((result) => `${result.check} ${result.operationId}`),
  );
  const fixed: BaselineOutcome['fixed'] = [];
  const listed = new Set<string>();
  for (const failure of baselineCases) {
    const key = defectKey(failure);
    if (seenKeys.has(key) || listed.has(key) || !ran.has(`${failure.check} ${failure.operationId}`)) continue;
    listed.add(key);
    fixed.push({
      id: defectId(failure),
      check: failure.check,
      operationId: failure.operationId,
      message: failure.message,
    });
  }
  return { ...report, results, baseline: { file, known, fixed } };
}
