// A vitest reporter that writes test-results/totals.json: what `npm test` (scripts/test.mjs) adds up into its
// closing "Tests: N passed, N failed, N skipped" line. It tells a skip from a failure the way a reader of the
// run would: a test that was meant to run but did not, because its file or a `beforeAll` of its suite threw
// (a service that did not start), is a failure — vitest itself reports such tests as skipped.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, SerializedError, TestCase, TestModule, TestRunEndReason } from 'vitest/node';

export interface TotalsReport {
  passed: number;
  failed: number;
  /** Tests that were not run on purpose, with why: a SKIPPED: stand-in's title, or the note of `skip(note)`. */
  skipped: { test: string; reason: string }[];
  /** Failed tests, tests that did not run because their setup failed, files that did not load. */
  failures: { test: string; error: string }[];
}

const firstLine = (error: SerializedError) =>
  `${error.name ?? 'Error'}: ${error.message}`.split('\n')[0] ?? '';

/** The suites around a test and the file, innermost first, each with its own errors (its hooks'). */
function setupErrors(test: TestCase): { owner: unknown; errors: ReadonlyArray<SerializedError> }[] {
  const owners: { owner: unknown; errors: ReadonlyArray<SerializedError> }[] = [];
  for (let parent = test.parent; ; parent = parent.parent) {
    owners.push({ owner: parent, errors: parent.errors() });
    if (parent.type === 'module') return owners;
  }
}

export default class TotalsReporter implements Reporter {
  private root = process.cwd();

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    _reason: TestRunEndReason,
  ): void {
    const report: TotalsReport = { passed: 0, failed: 0, skipped: [], failures: [] };
    for (const module of modules) {
      const file = module.relativeModuleId;
      /** Suites and files whose errors already stand beside the tests they kept from running. */
      const explained = new Set<unknown>();
      for (const test of module.children.allTests()) {
        const name = `${file} > ${test.fullName}`;
        const result = test.result();
        const setup = setupErrors(test);
        if (result.state === 'passed') report.passed++;
        else if (result.state === 'failed')
          report.failures.push({ test: name, error: result.errors?.map(firstLine).join('; ') ?? 'failed' });
        else if (test.options.mode === 'run' && setup.some(({ errors }) => errors.length > 0)) {
          for (const { owner } of setup) explained.add(owner);
          const errors = setup.flatMap(({ errors }) => errors);
          report.failures.push({ test: name, error: `did not run: ${errors.map(firstLine).join('; ')}` });
        } else {
          const marked = [...fullTitles(test)].find((title) => title.includes('SKIPPED:'));
          const reason = marked
            ? marked.replace(/^.*? — (.*?)(?: \*\*\*)?$/, '$1')
            : (result.note ?? test.fullName);
          report.skipped.push({ test: name, reason });
        }
      }
      // A file that did not load, or a hook that failed after its tests ran (an afterAll).
      for (const owner of [module, ...module.children.allSuites()]) {
        if (explained.has(owner) || owner.errors().length === 0) continue;
        const where = owner.type === 'module' ? file : `${file} > ${owner.fullName}`;
        report.failures.push({ test: where, error: owner.errors().map(firstLine).join('; ') });
      }
    }
    for (const error of unhandledErrors)
      report.failures.push({ test: '(unhandled error)', error: firstLine(error) });
    report.failed = report.failures.length;
    mkdirSync(join(this.root, 'test-results'), { recursive: true });
    writeFileSync(join(this.root, 'test-results', 'totals.json'), `${JSON.stringify(report, null, 2)}\n`);
  }
}

/** The test's own title and its suites' titles, innermost first. */
function* fullTitles(test: TestCase): Generator<string> {
  yield test.name;
  for (let parent = test.parent; parent.type === 'suite'; parent = parent.parent) yield parent.name;
}
