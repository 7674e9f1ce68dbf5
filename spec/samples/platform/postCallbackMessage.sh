# $CHAT_BOT_TOKEN: the event's callback.headers["x-chat-bot-token"] (valid for one hour).
curl -sS --fail-with-body -X POST "${PLATFORM_API_URL:-https://api.example.com}/v1/chat/bots/message/ch_4f2a9d71c3" \
  -H "x-chat-bot-token: $CHAT_BOT_TOKEN" \
  -H 'Content-Type: application/json' \
  -d '{"content":{"text":"Deploying build 1432 to prod…"}}'
