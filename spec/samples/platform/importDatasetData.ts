import { createPlatformClient } from '@platform-api/client';

const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
  scopes: ['data'],
});

const { error, response } = await platform.PUT('/v1/datasets/{id}/data', {
  params: { path: { id: '2f7fb1a5-6b3c-4a0e-9a4e-1c2d3e4f5a6b' }, query: { updateMethod: 'APPEND' } },
  headers: { 'Content-Type': 'text/csv' },
  body: 'Pythagoras,FALSE,2026-03-03\nAlan Turing,TRUE,2026-03-03\n', // no header line
  bodySerializer: (csv) => csv,
});
if (error) throw new Error(`importDatasetData failed: ${response.status} ${JSON.stringify(error)}`);
console.log(response.status);
