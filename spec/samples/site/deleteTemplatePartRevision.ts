import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.DELETE('/wp/v2/template-parts/{parent}/revisions/{id}', {
  params: { path: { parent: 'twentytwentythree//header', id: 35 }, query: { force: true } },
});
if (error) throw new Error(`deleteTemplatePartRevision failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
