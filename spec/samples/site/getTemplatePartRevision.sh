curl -sS --fail-with-body "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/template-parts/twentytwentythree%2F%2Fheader/revisions/35" \
  -u "$WP_USER:$WP_APP_PASSWORD"
