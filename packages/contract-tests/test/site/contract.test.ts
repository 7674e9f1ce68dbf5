// The site contract suite (./contract-suite.ts) against the Prism mock of the site spec and against every
// real WordPress found (scripts/wordpress/wordpress.sh brings up 6.1 and 7.1; each is named with its
// version). A WordPress that does not answer is skipped loudly, or fails under CI=true.
import { describe } from 'vitest';
import { siteContractSuite } from './contract-suite.js';
import { startPrismTarget } from './support/prism.js';
import { wordpressTarget } from './support/targets.js';
import { findWordPressSites, wordPressUnavailable } from './support/wordpress.js';

siteContractSuite({ name: 'prism', real: false, start: startPrismTarget });

for (const site of await findWordPressSites()) {
  if (site.available) {
    siteContractSuite({ name: site.name, real: true, start: async () => wordpressTarget(site) });
  } else {
    describe(`site contract against ${site.name}`, () =>
      wordPressUnavailable(site.reason, 'site contract tests', site.name));
  }
}
