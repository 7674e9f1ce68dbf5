import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.POST('/wp/v2/pages/{id}', {
  params: { path: { id: 7 } },
  body: { menu_order: 3 },
});
if (error) throw new Error(`updatePage failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
