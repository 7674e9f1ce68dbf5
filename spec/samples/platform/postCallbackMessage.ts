import { createPlatformClient } from '@platform-api/client';

const platform = createPlatformClient({
  baseUrl: process.env.PLATFORM_API_URL ?? 'https://api.example.com',
  clientId: process.env.PLATFORM_CLIENT_ID!,
  clientSecret: process.env.PLATFORM_CLIENT_SECRET!,
});

// The event's callback: its url names the channel, its headers carry the token (valid for one hour).
const { data, error, response } = await platform.POST('/v1/chat/bots/message/{channelId}', {
  params: { path: { channelId: 'ch_4f2a9d71c3' } },
  headers: { 'x-chat-bot-token': process.env.CHAT_BOT_TOKEN! },
  body: { content: { text: 'Deploying build 1432 to prod…' } },
});
if (error) throw new Error(`postCallbackMessage failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data);
