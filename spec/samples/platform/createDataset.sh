# $TOKEN: an access token with the data scope, from POST /oauth/token.
curl -sS --fail-with-body -X POST "${PLATFORM_API_URL:-https://api.example.com}/v1/datasets" \
  -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' \
  -d '{"name":"Leonhard Euler Party","schema":{"columns":[{"type":"STRING","name":"Friend"},{"type":"STRING","name":"Attending"},{"type":"DATE","name":"Invited"}]},"description":"Mathematician guest list"}'
