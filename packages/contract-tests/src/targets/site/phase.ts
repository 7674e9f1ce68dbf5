// The site's stateful phase: the scenarios of the site suite, in process on the run's Session — a setup
// (a published post; on WordPress a subscriber and a menu too), the contract scenarios (index, oEmbed,
// batch, content types, media, templates, coverage), the cleanup of everything they created (even after a
// failure), and the drift check against the site's route index. Every request is counted by the Session
// and each scenario is one site_scenario result.
import { SpecValidator } from '@platform-api/validator';
import { skipUnwalked } from '../../run/phases/pagination.js';
import type { PhaseRunner } from '../../run/runner.js';
import { loadBundle } from '../../spec.js';
import { CONTENT_TYPES, contentScenarios } from './content-scenarios.js';
import { coverageScenarios } from './coverage-scenarios.js';
import { driftScenarios } from './drift-scenarios.js';
import { type Json, type ScenarioTarget, SiteHarness } from './harness.js';
import { batchScenarios, indexScenarios, oembedScenarios } from './index-oembed-batch-scenarios.js';
import { mediaScenarios } from './media-scenarios.js';
import {
  attempt,
  emptyCounts,
  recordFailure,
  runScenarios,
  type Scenario,
  type ScenarioCounts,
} from './scenario.js';
import { contractSummary } from './summary.js';
import { TEMPLATE_TYPES, templateScenarios } from './template-scenarios.js';
import { createMenu, createUser, restApi } from './wordpress-rest.js';

export type ScenarioSuite = 'contract' | 'drift';

export interface ScenarioPhaseOptions {
  /** Which suites to run (default both; the drift check only applies to WordPress). */
  suites?: readonly ScenarioSuite[];
}

const CONTRACT = 'site contract';
const DRIFT = 'site drift';

/** The stateful phase against one site target (a real WordPress, or a mock of the site spec). */
export function scenarioPhase(target: ScenarioTarget, options: ScenarioPhaseOptions = {}): PhaseRunner {
  const suites = options.suites ?? ['contract', 'drift'];
  return async (session) => {
    if (!session.enabled('site_scenario')) {
      session.log('site scenarios not run: site_scenario is not among the selected checks');
      return;
    }
    // The whole spec, not the version-trimmed one of the generated phases: the scenarios read the spec's
    // version marks themselves to know what this version serves.
    const harness = new SiteHarness(session, new SpecValidator(loadBundle('site')), target);
    const counts = emptyCounts();
    if (suites.includes('contract')) await runContractSuite(harness, counts);
    if (suites.includes('contract') && harness.stateful)
      skipUnwalked(session, harness.validator, 'the scenarios make no items of this list to walk');
    if (suites.includes('drift')) await runScenarios(harness, DRIFT, driftScenarios(harness), counts);
    session.log(
      `site scenarios against ${target.name}: ${counts.run} run (${counts.passed} passed, ${counts.failed} failed), ${counts.skipped} skipped`,
    );
  };
}

async function runContractSuite(harness: SiteHarness, counts: ScenarioCounts): Promise<void> {
  const setup = setupScenario(harness);
  let setupFailed = false;
  const cleanupFailures: string[] = [];
  try {
    const failedBefore = counts.failed;
    await runScenarios(harness, CONTRACT, [setup], counts);
    setupFailed = counts.failed > failedBefore;
    const scenarios = [
      ...indexScenarios(harness),
      ...oembedScenarios(harness),
      ...batchScenarios(harness),
      ...CONTENT_TYPES.flatMap((type) => contentScenarios(harness, type)),
      ...mediaScenarios(harness),
      ...TEMPLATE_TYPES.flatMap((type) => templateScenarios(harness, type)),
      ...coverageScenarios(harness),
    ];
    await runScenarios(harness, CONTRACT, scenarios, counts, () =>
      setupFailed ? `"${setup.name}" failed` : undefined,
    );
  } finally {
    // What was created goes, whatever failed before (a throttled run included).
    cleanupFailures.push(...(await runCleanups(harness)));
    for (const line of contractSummary(harness, cleanupFailures)) harness.session.log(line);
  }
  const name = `${CONTRACT} › deletes everything the scenarios created`;
  counts.run += 1;
  if (cleanupFailures.length === 0) {
    harness.session.pass('site_scenario', { operationId: name });
    counts.passed += 1;
  } else {
    recordFailure(
      harness,
      name,
      new Error(`could not delete what the scenarios created:\n${cleanupFailures.join('\n')}`),
    );
    counts.failed += 1;
  }
  // What the target cannot serve (its version predates the operation, a plugin's, no route at all): the
  // scenarios held it to the 404 it answers instead, and the report says, per operation, that it is not
  // covered there.
  for (const [operationId, reason] of harness.notServed) {
    harness.session.skip('site_scenario', `${CONTRACT} › serves ${operationId}`, reason);
    counts.skipped += 1;
  }
}

/**
 * A published post (for oEmbed and to attach media to); on WordPress also a subscriber (its application
 * password shows what WordPress refuses a logged-in user) and a navigation menu (menus are outside the
 * spec). The mock with memory has neither users nor menus: what needs a subscriber is skipped there, and
 * its menu items name the fixture's menu id, which it does not look up.
 */
function setupScenario(harness: SiteHarness): Scenario {
  const { target, runId } = harness;
  const wordpress = harness.wordpress;
  return {
    name: wordpress ? 'setup: a subscriber, a published post and a menu' : 'setup: a published post',
    notApplicable: () =>
      target.kind === 'stateless-mock' ? 'the stateless mock serves any id: nothing to create' : undefined,
    run: async () => {
      const api = restApi(harness);
      if (wordpress) {
        const subscriber = await createUser(api, 'subscriber', `contract-${runId}`);
        harness.cleanups.push({
          label: `subscriber ${subscriber.username}`,
          run: () => subscriber.remove(),
        });
        harness.subscriber = harness.clientFor({
          username: subscriber.username,
          password: subscriber.password,
        });
      }
      const post = await harness.call('createPost', 201, {
        body: {
          title: `contract ${runId} oEmbed`,
          content: 'Embedded by the contract suite.',
          status: 'publish',
        },
      });
      const created = post.json as Json;
      harness.cleanup('oEmbed post', 'deletePost', { id: created.id });
      harness.fixture.post = created.id;
      harness.fixture.postLink = created.link;
      if (!wordpress) return;
      const menu = await createMenu(api, `contract ${runId}`);
      harness.fixture.menu = menu.id;
      harness.cleanups.push({ label: `menu ${menu.id}`, run: () => menu.remove() });
    },
  };
}

/** Runs every cleanup, newest first; returns what could not be deleted. */
async function runCleanups(harness: SiteHarness): Promise<string[]> {
  const failures: string[] = [];
  for (const cleanup of harness.cleanups.splice(0).reverse()) {
    const error = await attempt(harness, async () => {
      await cleanup.run();
    }).catch((thrown: unknown) => thrown);
    if (error !== undefined)
      failures.push(`${cleanup.label}: ${String((error as Error).message ?? error).split('\n')[0]}`);
  }
  return failures;
}
