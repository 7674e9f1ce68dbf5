# $TOKEN: an access token with the user scope, from POST /oauth/token.
curl -sS --fail-with-body -X POST "${PLATFORM_API_URL:-https://api.example.com}/v1/groups" \
  -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' \
  -d '{"name":"Groupy Group","default":false}'
