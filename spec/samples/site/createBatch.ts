import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.POST('/batch/v1', {
  body: {
    validation: 'normal',
    requests: [
      { method: 'POST', path: '/wp/v2/posts', body: { title: 'Batch one', status: 'draft' } },
      { method: 'DELETE', path: '/wp/v2/posts/999999' },
    ],
  },
});
if (error) throw new Error(`createBatch failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
