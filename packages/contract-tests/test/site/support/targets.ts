// The real WordPress sites the site scenarios run against, as scenario targets (the mocks are in
// ./mock.ts).
import { existsSync, readFileSync } from 'node:fs';
import type { ScenarioTarget } from '../../../src/index.js';
import type { WordPressSite } from './wordpress.js';

export function wordpressTarget(site: WordPressSite): ScenarioTarget {
  return {
    name: site.name,
    kind: 'wordpress',
    baseUrl: `${site.url}/wp-json`,
    credentials: { basic: { username: site.user, password: site.password } },
    version: site.version,
    logTail: () => {
      if (!site.log || !existsSync(site.log)) return `(no log of ${site.url} on this machine)`;
      return readFileSync(site.log, 'utf8').slice(-4_000);
    },
  };
}
