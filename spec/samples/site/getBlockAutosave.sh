curl -sS --fail-with-body "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/blocks/10/autosaves/6" \
  -u "$WP_USER:$WP_APP_PASSWORD"
