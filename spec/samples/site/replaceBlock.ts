import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.PUT('/wp/v2/blocks/{id}', {
  params: { path: { id: 10 } },
  body: { title: 'Call to action (v2)' },
});
if (error) throw new Error(`replaceBlock failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
