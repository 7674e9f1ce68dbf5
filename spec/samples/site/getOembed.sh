curl -sS --fail-with-body "${SITE_API_URL:-http://localhost:8080/wp-json}/oembed/1.0/embed?url=http%3A%2F%2Flocalhost%3A8080%2Fseeded-post%2F"
