// The site contract scenarios (src/targets/site) against the site mock with memory, the stateless mock and
// every real WordPress found (scripts/wordpress/wordpress.sh brings up 6.1 and 7.1; each is named with its
// version): every scenario passes or is skipped with its reason, and the requests are counted. A WordPress
// that does not answer is skipped loudly, or fails under CI=true.
import { describe, expect, it } from 'vitest';
import type { CaseResult } from '../../src/index.js';
import { startMockTarget } from './support/mock.js';
import { runSiteScenarios, scenarioFailures } from './support/scenarios.js';
import { wordpressTarget } from './support/targets.js';
import { findWordPressSites, wordPressUnavailable } from './support/wordpress.js';

const sites = await findWordPressSites();

const named = (scenarios: CaseResult[], outcome: CaseResult['outcome']) =>
  scenarios.filter((result) => result.outcome === outcome).map((result) => result.operationId);

describe('site contract scenarios', () => {
  it('pass against the site mock with memory, what needs WordPress skipped with its reason', async () => {
    const mock = await startMockTarget();
    try {
      const run = await runSiteScenarios(mock, ['contract']);
      expect(run.report.fatal).toBeUndefined();
      expect(scenarioFailures(run)).toEqual([]);
      const passed = named(run.scenarios, 'passed');
      // The walk through each content type ran for real: created, read, listed, changed, trashed, deleted.
      for (const plural of ['Posts', 'Pages', 'Blocks', 'MenuItems']) {
        for (const scenario of [
          'refuses anonymous and broken creates, then creates (201 + Location)',
          'reads one, finds it by include, and 404 for an unknown id',
          'updates with POST, PUT and PATCH',
          'creates, lists and reads autosaves',
          'refuses anonymous callers (401)',
        ])
          expect(passed).toContain(`site contract › ${plural} › ${scenario}`);
      }
      expect(passed).toContain(
        'site contract › Posts › trashes (200), refuses a second trash (410), deletes with force',
      );
      expect(passed).toContain('site contract › MenuItems › refuses to trash (501), deletes with force');
      expect(passed).toContain('site contract › media › refuses to trash (501), deletes with force');
      expect(passed).toContain('site contract › deletes everything the scenarios created');
      // What only WordPress has is skipped, never passed, each with why.
      const reasons = Object.fromEntries(
        run.scenarios
          .filter((result) => result.outcome === 'skipped')
          .map((result) => [result.operationId.replace('site contract › ', ''), result.reason]),
      );
      for (const scenario of [
        'Posts › lists and reads revisions; deleting one is refused (403)',
        'Posts › refuses users without the rights (403)',
        'oEmbed › embeds a local post as JSON and as XML',
        'batch › runs a batch of creates (207, one response per request)',
        'media › post-processes (200) and edits (201; 400 without src)',
        'Templates › refuses to delete a template that comes from the theme (400)',
      ])
        expect(reasons[scenario], scenario).toMatch(/^needs WordPress: /);
      for (const [scenario, reason] of Object.entries(reasons)) expect(reason, scenario).toBeTruthy();
      expect(run.report.phases[0]?.requests).toBeGreaterThan(run.scenarios.length);
    } finally {
      await mock.close();
    }
  }, 300_000);

  it('pass against the stateless mock, each status asked for with Prefer: code=N', async () => {
    const mock = await startMockTarget({ stateless: true });
    try {
      const run = await runSiteScenarios(mock, ['contract']);
      expect(run.report.fatal).toBeUndefined();
      expect(scenarioFailures(run)).toEqual([]);
      expect(run.scenarios.filter((result) => result.outcome === 'passed').length).toBeGreaterThan(50);
      expect(run.report.phases[0]?.requests).toBeGreaterThan(run.scenarios.length);
    } finally {
      await mock.close();
    }
  }, 300_000);

  it('fail, with the request that showed it, when the target does not behave as WordPress', async () => {
    // The stateless mock taken for a real site: it has no users route, so the setup fails and the
    // scenarios after it are skipped; the cleanup still runs.
    const mock = await startMockTarget({ stateless: true });
    try {
      const run = await runSiteScenarios({ ...mock, kind: 'wordpress', version: '7.1.4' }, ['contract']);
      const setup = run.scenarios.find((result) => result.operationId.includes('setup'));
      expect(setup?.outcome).toBe('failed');
      expect(setup?.failures[0]?.curl).toContain('/wp/v2/users');
      expect(run.scenarios.filter((result) => result.outcome === 'skipped').length).toBeGreaterThan(50);
      expect(run.scenarios.at(-1)).toMatchObject({ outcome: 'passed' });
    } finally {
      await mock.close();
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
