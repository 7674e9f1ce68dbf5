# $TOKEN: an access token with the chat scope, from POST /oauth/token.
curl -sS --fail-with-body -X POST "${PLATFORM_API_URL:-https://api.example.com}/v1/chat/channels/ch_4f2a9d71c3/messages" \
  -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' \
  -d '{"text":"Is build 1432 ready for prod?"}'
