import { createPlatformClient } from '@platform-api/client';

const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
  scopes: ['user'],
});

const { data, error, response } = await platform.POST('/v1/users', {
  body: { name: 'Leonhard Euler', email: 'leonhard.euler@example.com', role: 'Participant' },
});
if (error) throw new Error(`createUser failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
