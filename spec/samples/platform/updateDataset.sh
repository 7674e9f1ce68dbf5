# $TOKEN: an access token with the data scope, from POST /oauth/token.
curl -sS --fail-with-body -X PUT "${PLATFORM_API_URL:-https://api.example.com}/v1/datasets/2f7fb1a5-6b3c-4a0e-9a4e-1c2d3e4f5a6b" \
  -H "Authorization: Bearer $TOKEN" \
  -H 'Content-Type: application/json' \
  -d '{"name":"Euler Day Party","description":"Guests of the Euler day party"}'
