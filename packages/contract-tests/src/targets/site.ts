// The site's stateful phase for `contract-tests site`: the site suite's scenarios (./site/) against the
// given WordPress, in process on the run's Session, so that their requests are counted with the run's and
// each scenario is one site_scenario result. The WordPress version decides what the scenarios expect it to
// serve (site-target.ts finds it: --wp-version, else the generator the site's feed names).
import type { PhaseRunner } from '../run/runner.js';
import { siteScenarioPhase } from './site/phase.js';

export interface SiteTarget {
  url: string;
  user: string;
  appPassword: string;
  /** Unknown: every operation the spec marks x-wp-since is expected to be served. */
  wpVersion?: string;
}

export function siteScenariosPhase(site: SiteTarget): PhaseRunner {
  const siteUrl = site.url.replace(/\/+$/, '').replace(/\/wp-json$/, '');
  return siteScenarioPhase({
    name: `WordPress ${site.wpVersion ?? '(version unknown)'}`,
    real: true,
    baseUrl: `${siteUrl}/wp-json`,
    credentials: { basic: { username: site.user, password: site.appPassword } },
    version: site.wpVersion,
  });
}
