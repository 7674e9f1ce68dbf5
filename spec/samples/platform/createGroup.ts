import { createPlatformClient } from '@platform-api/client';

const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
  scopes: ['user'],
});

const { data, error, response } = await platform.POST('/v1/groups', {
  body: { name: 'Groupy Group', default: false },
});
if (error) throw new Error(`createGroup failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
