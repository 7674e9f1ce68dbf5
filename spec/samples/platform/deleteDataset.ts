import { createPlatformClient } from '@platform-api/client';

const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
  scopes: ['data'],
});

const { error, response } = await platform.DELETE('/v1/datasets/{id}', {
  params: { path: { id: '2f7fb1a5-6b3c-4a0e-9a4e-1c2d3e4f5a6b' } },
});
if (error) throw new Error(`deleteDataset failed: ${response.status} ${JSON.stringify(error)}`);
console.log(response.status);
