# $TOKEN: an access token with the user scope, from POST /oauth/token.
curl -sS --fail-with-body -X POST "${PLATFORM_API_URL:-https://api.example.com}/v1/users" \
  -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' \
  -d '{"name":"Leonhard Euler","email":"leonhard.euler@example.com","role":"Participant"}'
