// The site contract suite and the drift check against one WordPress, as run by `site-contract-tests`:
// the site comes from WORDPRESS_URL, WORDPRESS_USER and WORDPRESS_APP_PASSWORD (see bin/), and must
// answer (WORDPRESS_REQUIRED=true turns the loud skip into a failure).
import { describe } from 'vitest';
import { siteContractSuite } from '../../test/site/contract-suite.js';
import { siteDriftSuite } from '../../test/site/drift-suite.js';
import { wordpressTarget } from '../../test/site/support/targets.js';
import { findWordPressSites, wordPressUnavailable } from '../../test/site/support/wordpress.js';

if (!process.env.WORDPRESS_URL)
  throw new Error('WORDPRESS_URL, WORDPRESS_USER and WORDPRESS_APP_PASSWORD are required');

for (const site of await findWordPressSites()) {
  if (site.available) {
    siteDriftSuite(site);
    siteContractSuite({ name: site.name, real: true, start: async () => wordpressTarget(site) });
  } else {
    describe(`site contract against ${site.name}`, () =>
      wordPressUnavailable(site.reason, 'site contract tests', site.name));
  }
}
