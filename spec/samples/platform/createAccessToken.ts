import { createPlatformClient } from '@platform-api/client';

// createPlatformClient gets and renews tokens by itself: this is the request it makes, for other tools.
const { PLATFORM_CLIENT_ID: clientId = '', PLATFORM_CLIENT_SECRET: clientSecret = '' } = process.env;
const baseUrl = process.env.PLATFORM_API_URL ?? 'https://api.example.com';
const platform = createPlatformClient({ baseUrl, clientId, clientSecret });

const { data, error, response } = await platform.POST('/oauth/token', {
  headers: {
    Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    'Content-Type': 'application/x-www-form-urlencoded',
  },
  body: { grant_type: 'client_credentials', scope: 'data user' },
});
if (error) throw new Error(`createAccessToken failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data.access_token, data.expires_in);
