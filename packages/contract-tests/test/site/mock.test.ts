// The site contract run against the site mock (apps/mock) as `contract-tests site` runs it, held to the
// default profile: the generated phases (requests that read), the transport checks, and as the stateful
// phase the WordPress scenarios the mock can be held to (what needs WordPress is skipped, with why; the
// CLI tells the mock by its `Server` header) — with a fresh random seed each run (printed:
// CONTRACT_TESTS_SEED reproduces it).
import { randomUUID } from 'node:crypto';
import { startMock } from '@platform-api/mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failuresOf, formatSummary, freePort, runContractTests, writeReports } from '../../src/index.js';
import { describeFailure, freshSeed, reportFiles } from '../support/run.js';
import { runOptionsOf } from '../support/targets.js';

let mock: Awaited<ReturnType<typeof startMock>>;
beforeAll(async () => {
  mock = await startMock('site', { port: await freePort() });
}, 300_000);
afterAll(() => mock?.close());

describe('site API on the mock', () => {
  it('passes every phase and check the site is held to, the scenarios included', async () => {
    const log: string[] = [];
    // A user of its own: the mock's tenant, whose first password sticks.
    const options = await runOptionsOf(
      'site',
      mock.url,
      { user: `contract-${randomUUID()}`, 'app-password': randomUUID() },
      (line) => log.push(line),
    );
    const report = await runContractTests({
      ...options,
      target: 'the site mock',
      seed: freshSeed('the site mock run'),
    });
    writeReports(report, reportFiles('site-mock'));
    console.log(
      `${log.filter((line) => line.startsWith('site scenarios')).join('\n')}\n${formatSummary(report)}`,
    );
    expect(report.fatal).toBeUndefined();
    expect(failuresOf(report).map(describeFailure)).toEqual([]);
    expect(report.phases.map((phase) => phase.name)).toEqual([
      'examples',
      'coverage',
      'fuzz',
      'stateful',
      'transport',
    ]);
    expect(log).toContain(
      "the site is this repository's mock with memory: the scenarios that need WordPress are skipped",
    );
    expect(log.join('\n')).toMatch(
      /site scenarios against the site mock \(with memory\): [1-9]\d* run \([1-9]\d* passed, 0 failed\)/,
    );
  }, 900_000);
});
