curl -sS --fail-with-body "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/templates/twentytwentyfive%2F%2Fhome/revisions/35" \
  -u "$WP_USER:$WP_APP_PASSWORD"
