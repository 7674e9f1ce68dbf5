# $TOKEN: an access token with the chat scope, from POST /oauth/token.
curl -sS --fail-with-body -X POST "${PLATFORM_API_URL:-https://api.example.com}/v1/chat/integrations" \
  -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' \
  -d '{"name":"Deploy bot","scope":"CHANNEL_LIST","channelIds":["ch_4f2a9d71c3","ch_7e5b3c2a10"],"signDeliveries":true}'
