import { readFileSync } from 'node:fs';
import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.POST('/wp/v2/media', {
  params: { header: { 'Content-Disposition': 'attachment; filename="red-square.png"' } },
  headers: { 'Content-Type': 'image/png' },
  body: 'red-square.png', // a binary body is typed as a string: the serializer sends the file's bytes
  bodySerializer: () => readFileSync('red-square.png'),
});
if (error) throw new Error(`createMedia failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data.id, data.source_url);
