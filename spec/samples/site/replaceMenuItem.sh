curl -sS --fail-with-body -X PUT "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/menu-items/14" \
  -u "$WP_USER:$WP_APP_PASSWORD" \
  -H 'Content-Type: application/json' \
  -d '{"menu_order":2,"target":"_blank"}'
