# $TOKEN: an access token with the chat scope, from POST /oauth/token.
curl -sS --fail-with-body "${PLATFORM_API_URL:-https://api.example.com}/v1/chat/channels?limit=10" \
  -H "Authorization: Bearer $TOKEN"
