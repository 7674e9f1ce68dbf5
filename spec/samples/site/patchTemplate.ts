import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.PATCH('/wp/v2/templates/{id}', {
  params: { path: { id: 'twentytwentyfive//home' } },
  body: { content: '<!-- wp:paragraph --><p>Changed.</p><!-- /wp:paragraph -->' },
});
if (error) throw new Error(`patchTemplate failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
