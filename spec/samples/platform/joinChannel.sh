# $TOKEN: an access token with the chat scope, from POST /oauth/token.
curl -sS --fail-with-body -X POST "${PLATFORM_API_URL:-https://api.example.com}/v1/chat/channels/ch_4f2a9d71c3/members" \
  -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' \
  -d '{"userIds":[964382594,964382601]}'
