import { createPlatformClient } from '@platform-api/client';

const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
  scopes: ['user'],
});

const { error, response } = await platform.DELETE('/v1/users/{id}', {
  params: { path: { id: 964382593 } },
});
if (error) throw new Error(`deleteUser failed: ${response.status} ${JSON.stringify(error)}`);
console.log(response.status);
