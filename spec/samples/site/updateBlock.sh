curl -sS --fail-with-body -X POST "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/blocks/10" \
  -u "$WP_USER:$WP_APP_PASSWORD" \
  -H 'Content-Type: application/json' \
  -d '{"title":"Call to action (v2)"}'
