import { createPlatformClient } from '@platform-api/client';

const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
  scopes: ['user'],
});

const { data, error, response } = await platform.PUT('/v1/groups/{id}', {
  params: { path: { id: 876655018 } },
  body: { name: 'Former Groupy Group', active: false },
});
if (error) throw new Error(`updateGroup failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
