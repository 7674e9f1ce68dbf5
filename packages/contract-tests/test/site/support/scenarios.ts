// Runs the site scenarios (src/targets/site) against one target as the CLI's stateful phase does: in a
// contract run of that phase alone, so their requests are counted and each scenario is one result.
import {
  type CaseResult,
  ContractClient,
  loadBundle,
  type RunReport,
  runContractTests,
  type ScenarioSuite,
  type ScenarioTarget,
  SpecValidator,
  scenarioPhase,
} from '../../../src/index.js';
import { testSeed } from '../../support/run.js';

export interface ScenarioRun {
  report: RunReport;
  scenarios: CaseResult[];
  /** What the phase logged: the summaries and the count of scenarios run. */
  log: string[];
}

export async function runSiteScenarios(
  target: ScenarioTarget,
  suites: readonly ScenarioSuite[],
): Promise<ScenarioRun> {
  const validator = new SpecValidator(loadBundle('site'));
  const client = new ContractClient({ validator, baseUrl: target.baseUrl, credentials: target.credentials });
  const log: string[] = [];
  const report = await runContractTests({
    api: 'site',
    target: target.name,
    validator,
    client,
    seed: testSeed(),
    phases: ['stateful'],
    phaseRunners: { stateful: scenarioPhase(target, { suites }) },
    log: (line) => log.push(line),
  });
  console.log(`\n${log.join('\n')}\n`);
  return { report, scenarios: report.results.filter((result) => result.check === 'site_scenario'), log };
}

/** The scenarios that did not pass, each with its message and request, for an assertion to show. */
export function scenarioFailures(run: ScenarioRun): string[] {
  return run.scenarios
    .filter((result) => result.outcome === 'failed')
    .flatMap((result) =>
      result.failures.map(
        (failure) =>
          `${result.operationId}: ${failure.message}\n${failure.curl}\n→ ${failure.status} ${failure.excerpt}`,
      ),
    );
}
