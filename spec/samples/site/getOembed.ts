import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({ baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json' });

const { data, error, response } = await site.GET('/oembed/1.0/embed', {
  params: { query: { url: 'http://localhost:8080/seeded-post/' } },
});
if (error) throw new Error(`getOembed failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
