curl -sS --fail-with-body -X POST "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/media/13" \
  -u "$WP_USER:$WP_APP_PASSWORD" \
  -H 'Content-Type: application/json' \
  -d '{"alt_text":"A red square","caption":"A red square, 20 by 10 pixels","post":4}'
