curl -sS --fail-with-body -X PUT "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/posts/4" \
  -u "$WP_USER:$WP_APP_PASSWORD" \
  -H 'Content-Type: application/json' \
  -d '{"title":{"raw":"A better title"},"status":"publish","sticky":true}'
