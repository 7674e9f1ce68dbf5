import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.POST('/wp/v2/blocks', {
  body: {
    title: 'Call to action',
    content: '<!-- wp:paragraph --><p>Sign up today.</p><!-- /wp:paragraph -->',
    status: 'publish',
  },
});
if (error) throw new Error(`createBlock failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
