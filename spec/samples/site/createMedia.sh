curl -sS --fail-with-body -X POST "${SITE_API_URL:-http://localhost:8080/wp-json}/wp/v2/media" \
  -u "$WP_USER:$WP_APP_PASSWORD" \
  -H 'Content-Type: image/png' \
  -H 'Content-Disposition: attachment; filename="red-square.png"' \
  --data-binary @red-square.png
