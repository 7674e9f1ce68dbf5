import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.GET('/oembed/1.0/proxy', {
  params: { query: { url: 'http://localhost:8080/seeded-post/' } },
});
if (error) throw new Error(`getOembedProxy failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
