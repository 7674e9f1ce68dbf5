import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.POST('/wp/v2/media/{id}', {
  params: { path: { id: 13 } },
  body: { alt_text: 'A red square', caption: 'A red square, 20 by 10 pixels', post: 4 },
});
if (error) throw new Error(`updateMedia failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
