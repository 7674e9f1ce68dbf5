curl -sS --fail-with-body -X POST "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/templates/twentytwentyfive%2F%2Fhome/autosaves" \
  -u "$WP_USER:$WP_APP_PASSWORD" \
  -H 'Content-Type: application/json' \
  -d '{"content":"<!-- wp:paragraph --><p>Work in progress.</p><!-- /wp:paragraph -->"}'
