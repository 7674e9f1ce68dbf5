curl -sS --fail-with-body -X POST "${SITE_API_URL:-http://localhost:8080/wp-json}/batch/v1" \
  -u "$WP_USER:$WP_APP_PASSWORD" \
  -H 'Content-Type: application/json' \
  -d '{"requests":[{"method":"POST","path":"/wp/v2/posts","body":{"title":"Batch one","status":"draft"}},{"method":"DELETE","path":"/wp/v2/posts/999999"}]}'
