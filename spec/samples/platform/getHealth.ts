import { createPlatformClient } from '@platform-api/client';

const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
});

const { data, error, response } = await platform.GET('/healthz');
if (error) throw new Error(`getHealth failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
