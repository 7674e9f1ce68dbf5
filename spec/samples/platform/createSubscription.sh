# $TOKEN: an access token with the chat scope, from POST /oauth/token.
curl -sS --fail-with-body -X POST "${PLATFORM_API_URL:-https://api.example.com}/v1/chat/integrations/0b8e6c1e-4f1a-4d6e-9c49-7a1f3e2d5b60/subscriptions" \
  -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' \
  -d '{"eventType":"MESSAGE_POSTED","url":"https://bots.example.com/hooks/messages"}'
