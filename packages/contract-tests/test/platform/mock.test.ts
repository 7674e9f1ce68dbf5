// The platform contract run against the Prism mock of the bundled platform spec: the phases a stateless
// mock can answer (examples, coverage, transport); Prism checks that credentials are present, not valid.
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

const validator = new SpecValidator(loadBundle('platform'));
let mock: Awaited<ReturnType<typeof startMock>>;
let client: ContractClient;

beforeAll(async () => {
  mock = await startMock('platform', { port: await freePort() });
  client = new ContractClient({
    validator,
    baseUrl: mock.url,
    credentials: {
      bearer: 'mock-token',
      basic: { username: 'client-id', password: 'client-secret' },
      apiKeys: { 'x-chat-bot-token': 'a'.repeat(64) },
    },
  });
});
afterAll(() => mock?.close());

describe('platform API on the Prism mock', () => {
  it('answers the examples, coverage and transport phases as documented', async () => {
    const report = await runContractTests({
      api: 'platform',
      target: 'the Prism mock',
      validator,
      client,
      seed: testSeed(),
      // What a stateless mock can be held to (--profile stateless), and what it accepts and refuses: this
      // one validates requests as the spec says (its front adds the rules Prism cannot read).
      phases: PROFILES.stateless.phases,
      checks: [...PROFILES.stateless.checks, 'negative_data_rejection', 'positive_data_acceptance'],
    });
    writeReports(report, reportFiles('platform-mock'));
    console.log(formatSummary(report));
    expect(report.fatal).toBeUndefined();
    expect(failuresOf(report).map(describeFailure)).toEqual([]);
  }, 300_000);
});
