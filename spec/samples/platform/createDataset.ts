import { createPlatformClient } from '@platform-api/client';

const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
  scopes: ['data'],
});

const { data, error, response } = await platform.POST('/v1/datasets', {
  body: {
    name: 'Leonhard Euler Party',
    schema: {
      columns: [
        { type: 'STRING', name: 'Friend' },
        { type: 'STRING', name: 'Attending' },
        { type: 'DATE', name: 'Invited' },
      ],
    },
    description: 'Mathematician guest list',
  },
});
if (error) throw new Error(`createDataset failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
