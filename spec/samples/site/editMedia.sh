curl -sS --fail-with-body -X POST "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/media/13/edit" \
  -u "$WP_USER:$WP_APP_PASSWORD" \
  -H 'Content-Type: application/json' \
  -d '{"src":"http://localhost:8080/wp-content/uploads/2026/11/spec-example.png","modifiers":[{"type":"rotate","args":{"angle":90}}]}'
