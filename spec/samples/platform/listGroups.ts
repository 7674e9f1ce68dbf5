import { createPlatformClient } from '@platform-api/client';

const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
  scopes: ['user'],
});

const { data, error, response } = await platform.GET('/v1/groups', {
  params: { query: { limit: 10 } },
});
if (error) throw new Error(`listGroups failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
