// The recall run in small, for CI: two mutants named by their stable description (one that every run of
// either tool kills: the guard treating every operation as public), both tools really run against a
// really mutated server, and the report's shape and scores checked. Schemathesis must install under
// CI=true; elsewhere its absence is a loud skip.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unavailable } from '@platform-api/test-support';
import { describe, expect, it } from 'vitest';
import { type Mutant, type RecallReport, runRecall, schemathesisCommand } from '../src/index.js';
import { stateDir } from '../src/paths.js';

const CHOSEN = [
  // Every operation public: ignored_auth (both tools) sees 2xx without credentials.
  'src/auth/guard.ts | ConditionalExpression | requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0) → true',
  // Only the text of an error message: a mutant both tools are expected to miss.
  'src/auth/guard.ts | StringLiteral | \'Bad client credentials\' → ""',
];

function chosen(all: readonly Mutant[]): Mutant[] {
  return CHOSEN.map((key) => {
    const found = all.find((mutant) => mutant.key === key);
    if (!found)
      throw new Error(`no mutant "${key}" any more: pick another for the smoke in test/smoke.test.ts`);
    return found;
  });
}

const missing = await schemathesisCommand().then(
  () => undefined,
  (error: unknown) => (error as Error).message,
);

if (missing) {
  unavailable('recall smoke', missing);
} else {
  describe('recall smoke', () => {
    it('judges two mutants with both tools and reports both scores', async () => {
      const workDir = join(stateDir, 'smoke');
      const reportFile = join(workDir, 'report.json');
      const lines: string[] = [];
      const report = await runRecall({
        size: 2,
        seed: 1,
        select: chosen,
        reportFile,
        workDir,
        log: (l) => lines.push(l),
      });
      console.log(lines.join('\n'));

      expect(existsSync(reportFile)).toBe(true);
      const written = JSON.parse(readFileSync(reportFile, 'utf8')) as RecallReport;
      expect(written.format).toBe('recall-report/1');
      expect(written.sample.size).toBe(2);
      expect(written.mutants.map((j) => j.mutant?.key)).toEqual(CHOSEN);
      // Both tools ran against the unmutated server first (whether they pass it is the full run's concern:
      // a generator's rare false positive must not fail CI).
      expect(report.baseline.runs.contractSuite?.seed).toMatch(/^\d+$/);
      expect(report.baseline.runs.schemathesis?.seed).toMatch(/^\d+$/);
      // The servers deliver to the suite's receiver: its webhooks phase ran (else it says it was not run).
      const suiteLog = readFileSync(report.baseline.runs.contractSuite?.logFile ?? '', 'utf8');
      expect(suiteLog).toMatch(/^ {2}webhooks: \d+ requests$/m);
      for (const judged of report.mutants) {
        expect(judged.startupFailure).toBeUndefined();
        expect(judged.runs.contractSuite?.seed).toMatch(/^\d+$/);
        expect(judged.runs.schemathesis?.seed).toMatch(/^\d+$/);
      }
      const [everythingPublic] = report.mutants;
      expect(everythingPublic?.runs.contractSuite?.failed).toBe(true);
      for (const score of Object.values(report.scores)) {
        expect(score.total).toBe(2);
        expect(score.killed).toBeGreaterThanOrEqual(1);
        expect(score.percent).toBe(Math.round((1000 * score.killed) / score.total) / 10);
      }
      expect(lines.some((line) => line.startsWith('  contract suite: '))).toBe(true);
      expect(lines.some((line) => line.startsWith('  Schemathesis: '))).toBe(true);
    });
  });
}
