// An x-internal operation: the published client leaves it out; this repository's whole-API client has it.
import { createInternalPlatformClient } from '@platform-api/client/internal';

const platform = createInternalPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
  scopes: ['chat'],
});

const { data, error, response } = await platform.GET('/v1/chat/channels/{channelId}', {
  params: { path: { channelId: 'ch_4f2a9d71c3' } },
});
if (error) throw new Error(`getChannel failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
