import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.POST('/wp/v2/media/{id}/edit', {
  params: { path: { id: 13 } },
  body: {
    src: 'http://localhost:8080/wp-content/uploads/2026/11/spec-example.png',
    modifiers: [{ type: 'rotate', args: { angle: 90 } }],
  },
});
if (error) throw new Error(`editMedia failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
