// The site contract run against the Prism mock of the bundled site spec: the phases a stateless
// mock can answer (examples, coverage, transport).
import { startMock } from '@platform-api/mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ContractClient,
  failuresOf,
  formatSummary,
  freePort,
  loadBundle,
  PROFILES,
  runContractTests,
  SpecValidator,
  writeReports,
} from '../../src/index.js';
import { describeFailure, reportFiles, testSeed } from '../support/run.js';

const validator = new SpecValidator(loadBundle('site'));
let mock: Awaited<ReturnType<typeof startMock>>;
let client: ContractClient;

beforeAll(async () => {
  mock = await startMock('site', { port: await freePort() });
  client = new ContractClient({
    validator,
    baseUrl: mock.url,
    credentials: { basic: { username: 'admin', password: 'an application password' } },
  });
});
afterAll(() => mock?.close());

describe('site API on the Prism mock', () => {
  it('answers the examples, coverage and transport phases as documented', async () => {
    const report = await runContractTests({
      api: 'site',
      target: 'the Prism mock',
      validator,
      client,
      seed: testSeed(),
      // What a stateless mock can be held to (--profile stateless): Prism checks that credentials are
      // present, not valid, and validates query strings by rules of its own (no `pattern`).
      phases: PROFILES.stateless.phases,
      checks: PROFILES.stateless.checks,
    });
    writeReports(report, reportFiles('site-mock'));
    console.log(formatSummary(report));
    expect(report.fatal).toBeUndefined();
    expect(failuresOf(report).map(describeFailure)).toEqual([]);
  }, 300_000);
});
