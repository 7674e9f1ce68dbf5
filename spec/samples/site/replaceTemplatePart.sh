curl -sS --fail-with-body -X PUT "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/template-parts/twentytwentythree%2F%2Fheader" \
  -u "$WP_USER:$WP_APP_PASSWORD" \
  -H 'Content-Type: application/json' \
  -d '{"content":"<!-- wp:paragraph --><p>Changed.</p><!-- /wp:paragraph -->"}'
