import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.POST('/wp/v2/posts/{id}/autosaves', {
  params: { path: { id: 4 } },
  body: { title: { raw: 'A better title' }, status: 'publish', sticky: true },
});
if (error) throw new Error(`createPostAutosave failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
