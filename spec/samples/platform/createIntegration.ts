import { createPlatformClient } from '@platform-api/client';

const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
  scopes: ['chat'],
});

const { data, error, response } = await platform.POST('/v1/chat/integrations', {
  body: {
    name: 'Deploy bot',
    scope: 'CHANNEL_LIST',
    channelIds: ['ch_4f2a9d71c3', 'ch_7e5b3c2a10'],
    signDeliveries: true, // deliveries carry Standard Webhooks signatures
  },
});
if (error) throw new Error(`createIntegration failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data.id, data.signingSecret); // the secret is shown only once
