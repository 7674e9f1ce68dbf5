import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.GET('/wp/v2/pages/{parent}/revisions', {
  params: { path: { parent: 7 }, query: { per_page: 5 } },
});
if (error) throw new Error(`listPageRevisions failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
