import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.PATCH('/wp/v2/menu-items/{id}', {
  params: { path: { id: 14 } },
  body: { menu_order: 2, target: '_blank' },
});
if (error) throw new Error(`patchMenuItem failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
