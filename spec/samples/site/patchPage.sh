curl -sS --fail-with-body -X PATCH "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/pages/7" \
  -u "$WP_USER:$WP_APP_PASSWORD" \
  -H 'Content-Type: application/json' \
  -d '{"menu_order":3}'
