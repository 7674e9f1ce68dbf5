// The site's stateful phase for `contract-tests site`: the site suite's scenarios (./site/) against the
// given WordPress, in process on the run's Session, so that their requests are counted with the run's and
// each scenario is one site_scenario result. The WordPress version decides what the scenarios expect it to
// serve: --wp-version, else the generator its feed names.
import type { PhaseRunner } from '../run/runner.js';
import { siteScenarioPhase } from './site/phase.js';
import { feedVersion } from './site/wordpress-rest.js';

export interface SiteTarget {
  url: string;
  user: string;
  appPassword: string;
  wpVersion?: string;
}

export function siteScenariosPhase(site: SiteTarget): PhaseRunner {
  return async (session) => {
    const siteUrl = site.url.replace(/\/+$/, '').replace(/\/wp-json$/, '');
    const version =
      site.wpVersion ?? (await feedVersion((request) => session.sendUndocumented(request), siteUrl));
    if (version === undefined)
      session.log(
        `the WordPress version of ${siteUrl} is unknown (no --wp-version, no generator in its feed): operations the spec marks x-wp-since are expected to be served`,
      );
    const run = siteScenarioPhase({
      name: `WordPress ${version ?? '(version unknown)'}`,
      real: true,
      baseUrl: `${siteUrl}/wp-json`,
      credentials: { basic: { username: site.user, password: site.appPassword } },
      version,
    });
    await run(session);
  };
}
