// The site contract scenarios (src/targets/site) against the Prism mock of the site spec and against every
// real WordPress found (scripts/wordpress/wordpress.sh brings up 6.1 and 7.1; each is named with its
// version): every scenario passes or is skipped with its reason, and the requests are counted. A WordPress
// that does not answer is skipped loudly, or fails under CI=true.
import { describe, expect, it } from 'vitest';
import { startPrismTarget } from './support/prism.js';
import { runSiteScenarios, scenarioFailures } from './support/scenarios.js';
import { wordpressTarget } from './support/targets.js';
import { findWordPressSites, wordPressUnavailable } from './support/wordpress.js';

const sites = await findWordPressSites();

describe('site contract scenarios', () => {
  it('pass against the Prism mock, each status asked for with Prefer: code=N', async () => {
    const prism = await startPrismTarget();
    try {
      const run = await runSiteScenarios(prism, ['contract']);
      expect(run.report.fatal).toBeUndefined();
      expect(scenarioFailures(run)).toEqual([]);
      expect(run.scenarios.filter((result) => result.outcome === 'passed').length).toBeGreaterThan(50);
      expect(run.report.phases[0]?.requests).toBeGreaterThan(run.scenarios.length);
    } finally {
      await prism.close();
    }
  }, 300_000);

  it('fail, with the request that showed it, when the target does not behave as WordPress', async () => {
    // The mock taken for a real site: it has no users route, so the setup fails and the scenarios after
    // it are skipped; the cleanup still runs.
    const prism = await startPrismTarget();
    try {
      const run = await runSiteScenarios({ ...prism, real: true, version: '7.1.4' }, ['contract']);
      const setup = run.scenarios.find((result) => result.operationId.includes('setup'));
      expect(setup?.outcome).toBe('failed');
      expect(setup?.failures[0]?.curl).toContain('/wp/v2/users');
      expect(run.scenarios.filter((result) => result.outcome === 'skipped').length).toBeGreaterThan(50);
      expect(run.scenarios.at(-1)).toMatchObject({ outcome: 'passed' });
    } finally {
      await prism.close();
    }
  }, 120_000);

  for (const site of sites) {
    if (!site.available) {
      wordPressUnavailable(site.reason, 'site contract scenarios', site.name);
      continue;
    }
    it(`pass against ${site.name}`, async () => {
      const run = await runSiteScenarios(wordpressTarget(site), ['contract']);
      expect(run.report.fatal).toBeUndefined();
      expect(scenarioFailures(run)).toEqual([]);
      expect(run.scenarios.filter((result) => result.outcome === 'passed').length).toBeGreaterThan(50);
      expect(run.report.phases[0]?.requests).toBeGreaterThan(run.scenarios.length);
    }, 600_000);
  }
});
