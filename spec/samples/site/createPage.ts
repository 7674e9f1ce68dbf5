import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.POST('/wp/v2/pages', {
  body: {
    title: 'About us',
    content: '<!-- wp:paragraph --><p>Who we are.</p><!-- /wp:paragraph -->',
    status: 'publish',
  },
});
if (error) throw new Error(`createPage failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
