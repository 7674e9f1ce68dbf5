import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.POST('/wp/v2/menu-items', {
  body: {
    title: 'Example',
    url: 'https://example.org/',
    menus: 4,
    type: 'custom',
    status: 'publish',
    parent: 0,
    menu_order: 1,
    object_id: 0,
  },
});
if (error) throw new Error(`createMenuItem failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
