# $TOKEN: an access token with the chat scope, from POST /oauth/token.
curl -sS --fail-with-body "${PLATFORM_API_URL:-https://api.example.com}/v1/chat/integrations" \
  -H "Authorization: Bearer $TOKEN"
