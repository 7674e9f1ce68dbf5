curl -sS --fail-with-body -X POST "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/template-parts" \
  -u "$WP_USER:$WP_APP_PASSWORD" \
  -H 'Content-Type: application/json' \
  -d '{"slug":"promo-banner","title":"Promo banner","content":"<!-- wp:paragraph --><p>Sale!</p><!-- /wp:paragraph -->"}'
