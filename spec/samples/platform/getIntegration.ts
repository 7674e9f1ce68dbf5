import { createPlatformClient } from '@platform-api/client';

const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
  scopes: ['chat'],
});

const { data, error, response } = await platform.GET('/v1/chat/integrations/{integrationId}', {
  params: { path: { integrationId: '0b8e6c1e-4f1a-4d6e-9c49-7a1f3e2d5b60' } },
});
if (error) throw new Error(`getIntegration failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
