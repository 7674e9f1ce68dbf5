import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({ baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json' });

const { data, error, response } = await site.GET('/wp/v2/blocks/{id}', {
  params: { path: { id: 10 } },
});
if (error) throw new Error(`getBlock failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
