// The site's stateful phase for `contract-tests site`: the site suite's scenarios (./site/) against the
// given site, in process on the run's Session, so that their requests are counted with the run's and each
// scenario is one site_scenario result. The WordPress version decides what the scenarios expect it to
// serve (site-target.ts finds it: --wp-version, else the generator the site's feed names); a mock of the
// site spec is held to what it can do (see ScenarioTargetKind).
import type { PhaseRunner } from '../run/runner.js';
import type { ScenarioTargetKind } from './site/harness.js';
import { siteScenarioPhase } from './site/phase.js';

export interface SiteTarget {
  url: string;
  user: string;
  appPassword: string;
  /** Unknown: every operation the spec marks x-wp-since is expected to be served. */
  wpVersion?: string;
  /** What answers (default a real WordPress). */
  kind?: ScenarioTargetKind;
}

const MOCK_NAMES: Record<ScenarioTargetKind, string | undefined> = {
  wordpress: undefined,
  mock: 'the site mock (with memory)',
  'stateless-mock': 'the stateless site mock',
};

export function siteScenariosPhase(site: SiteTarget): PhaseRunner {
  const siteUrl = site.url.replace(/\/+$/, '').replace(/\/wp-json$/, '');
  const kind = site.kind ?? 'wordpress';
  return siteScenarioPhase({
    name: MOCK_NAMES[kind] ?? `WordPress ${site.wpVersion ?? '(version unknown)'}`,
    kind,
    baseUrl: `${siteUrl}/wp-json`,
    credentials: { basic: { username: site.user, password: site.appPassword } },
    version: site.wpVersion,
  });
}

/**
 * What a site's answer says it is: the mocks of this repository name themselves in `Server`
 * (`platform-api-mock (memory)`, `platform-api-mock (stateless)`); anything else is taken for WordPress.
 */
export function siteKindOf(server: string | null): ScenarioTargetKind {
  const mock = /^platform-api-mock \((memory|stateless)\)/.exec(server ?? '');
  if (!mock) return 'wordpress';
  return mock[1] === 'memory' ? 'mock' : 'stateless-mock';
}
