import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({
  baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json',
  username: process.env.WP_USER!,
  applicationPassword: process.env.WP_APP_PASSWORD!,
});

const { data, error, response } = await site.POST('/wp/v2/template-parts', {
  body: {
    slug: 'promo-banner',
    title: 'Promo banner',
    content: '<!-- wp:paragraph --><p>Sale!</p><!-- /wp:paragraph -->',
    description: 'A banner above the header.',
    status: 'publish',
  },
});
if (error) throw new Error(`createTemplatePart failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
