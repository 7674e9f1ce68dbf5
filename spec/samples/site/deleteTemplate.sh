curl -sS --fail-with-body -X DELETE "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/templates/twentytwentyfive%2F%2Fhome" \
  -u "$WP_USER:$WP_APP_PASSWORD"
