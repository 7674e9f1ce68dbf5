// The platform contract run against the platform mock (apps/mock) as `contract-tests platform` runs it,
// held to the default profile: every phase but webhooks (the mock sends none; the internal operations are
// included), every check, two tenants (so tenant_isolation runs), tokens from the mock's own token
// operation, and a fresh random seed each run (printed: CONTRACT_TESTS_SEED reproduces it). A mock started
// stateless is held to `--profile stateless` only (test/cli-mocks.test.ts).
import { randomUUID } from 'node:crypto';
import { startMock } from '@platform-api/mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failuresOf, formatSummary, freePort, runContractTests, writeReports } from '../../src/index.js';
import { describeFailure, freshSeed, reportFiles } from '../support/run.js';
import { runOptionsOf } from '../support/targets.js';

/** `--client-id … --client-secret …` of a new tenant: the mock makes each client id one, with its first secret. */
const tenant = (prefix = '') => ({
  [`${prefix}client-id`]: `contract-${randomUUID()}`,
  [`${prefix}client-secret`]: randomUUID(),
});

describe('platform API on the mock', () => {
  let mock: Awaited<ReturnType<typeof startMock>>;
  beforeAll(async () => {
    mock = await startMock('platform', { port: await freePort() });
  }, 300_000);
  afterAll(() => mock?.close());

  it('passes every phase and check, with two tenants', async () => {
    const log: string[] = [];
    const options = await runOptionsOf(
      'platform',
      mock.url,
      { ...tenant(), ...tenant('other-'), scopes: 'user data chat' },
      (line) => log.push(line),
    );
    const report = await runContractTests({
      ...options,
      target: 'the platform mock',
      seed: freshSeed('the platform mock run'),
    });
    writeReports(report, reportFiles('platform-mock'));
    console.log(formatSummary(report));
    expect(report.fatal).toBeUndefined();
    expect(failuresOf(report).map(describeFailure)).toEqual([]);
    expect(report.phases.map((phase) => phase.name)).toEqual([
      'examples',
      'coverage',
      'fuzz',
      'stateful',
      'transport',
    ]);
    // The stateful checks ran (two tenants), not only the response checks.
    for (const check of [
      'ensure_resource_availability',
      'use_after_free',
      'tenant_isolation',
      'pagination_semantics',
      'deleted_not_listed',
      'scope_enforcement',
    ] as const)
      expect(
        report.results.some(
          (result) => result.check === check && result.outcome === 'passed' && result.runs > 0,
        ),
        check,
      ).toBe(true);
  }, 900_000);
});
