curl -sS --fail-with-body -X POST "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/pages" \
  -u "$WP_USER:$WP_APP_PASSWORD" \
  -H 'Content-Type: application/json' \
  -d '{"title":"About us","content":"<!-- wp:paragraph --><p>Who we are.</p><!-- /wp:paragraph -->","status":"publish"}'
