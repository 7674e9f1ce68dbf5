// An x-internal operation: the published client leaves it out; this repository's whole-API client has it.
import { createInternalPlatformClient } from '@platform-api/client/internal';

const platform = createInternalPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
  scopes: ['chat'],
});

const { data, error, response } = await platform.POST('/v1/chat/channels/{channelId}/members', {
  params: { path: { channelId: 'ch_4f2a9d71c3' } },
  body: { userIds: [964382594, 964382601] },
});
if (error) throw new Error(`joinChannel failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
