# $TOKEN: an access token with the user scope, from POST /oauth/token.
curl -sS --fail-with-body "${PLATFORM_API_URL:-https://api.example.com}/v1/groups?limit=10" \
  -H "Authorization: Bearer $TOKEN"
