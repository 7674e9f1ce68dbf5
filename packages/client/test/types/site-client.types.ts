// Compile-time checks of the site client; never executed.
import { createSiteClient, type SiteClient } from '../../src/index.js';
import type { paths } from '../../src/site-types.js';

export async function siteCalls(site: SiteClient) {
  const index = await site.GET('/');
  if (index.data) index.data satisfies paths['/']['get']['responses'][200]['content']['application/json'];
  // @ts-expect-error -- not a route of the site description
  await site.GET('/wp/v2/nothing-here', {});
}

export function siteOptions() {
  createSiteClient({ baseUrl: 'https://example.com/wp-json' });
  createSiteClient({
    baseUrl: 'https://example.com/wp-json',
    username: 'editor',
    applicationPassword: 'abcd efgh',
  });
  // @ts-expect-error -- baseUrl is required
  createSiteClient({});
  // @ts-expect-error -- a user name needs its application password
  createSiteClient({ baseUrl: 'https://example.com/wp-json', username: 'editor' });
}
