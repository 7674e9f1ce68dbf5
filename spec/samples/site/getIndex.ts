import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({ baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json' });

const { data, error, response } = await site.GET('/');
if (error) throw new Error(`getIndex failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
