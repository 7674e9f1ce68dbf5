# The token request with its parameters in the query string (prefer POST: createAccessToken).
curl -sS --fail-with-body "${PLATFORM_API_URL:-https://api.example.com}/oauth/token?grant_type=client_credentials&scope=data%20user" \
  -u "$PLATFORM_CLIENT_ID:$PLATFORM_CLIENT_SECRET"
