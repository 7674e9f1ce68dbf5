import { createPlatformClient } from '@platform-api/client';

// The token request with its parameters in the query string (prefer POST: createAccessToken).
const { PLATFORM_CLIENT_ID: clientId = '', PLATFORM_CLIENT_SECRET: clientSecret = '' } = process.env;
const baseUrl = process.env.PLATFORM_API_URL ?? 'https://api.example.com';
const platform = createPlatformClient({ baseUrl, clientId, clientSecret });

const { data, error, response } = await platform.GET('/oauth/token', {
  params: { query: { grant_type: 'client_credentials', scope: 'data user' } },
  headers: { Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
});
if (error) throw new Error(`getAccessToken failed: ${response.status} ${JSON.stringify(error)}`);
console.log(data.access_token, data.expires_in);
