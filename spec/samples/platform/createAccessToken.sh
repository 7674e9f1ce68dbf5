# Prints the token response; the calls then send `Authorization: Bearer <access_token>`.
curl -sS --fail-with-body -X POST "${PLATFORM_API_URL:-https://api.example.com}/oauth/token" \
  -u "$PLATFORM_CLIENT_ID:$PLATFORM_CLIENT_SECRET" \
  -d grant_type=client_credentials \
  --data-urlencode 'scope=data user'
