import { createSiteClient } from '@platform-api/client';

const site = createSiteClient({ baseUrl: process.env.SITE_API_URL ?? 'http://localhost:8080/wp-json' });

const { data, error, response } = await site.GET('/{plugin_namespace}/v1', {
  params: { path: { plugin_namespace: 'example-seo' } },
});
if (error) throw new Error(`getPluginNamespaceIndex failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
