curl -sS --fail-with-body "${PLATFORM_API_URL:-https://api.example.com}/.well-known/jwks.json"
