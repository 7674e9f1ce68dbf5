# $TOKEN: an access token with the chat scope, from POST /oauth/token.
curl -sS --fail-with-body "${PLATFORM_API_URL:-https://api.example.com}/v1/chat/channels/ch_4f2a9d71c3/messages?limit=10" \
  -H "Authorization: Bearer $TOKEN"
