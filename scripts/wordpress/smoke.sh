#!/usr/bin/env bash
# End-to-end check of a WordPress brought up by wordpress.sh: reads the env file it wrote and
# checks over real HTTP that the REST index, the seeded collections, an authenticated create
# (cleaned up afterwards) and oEmbed XML answer as the site contract tests expect.
# Exit 0 when every check passed, 1 otherwise.
set -euo pipefail

readonly SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly STATE_DIR="$(realpath -m "${WORDPRESS_STATE_DIR:-$SCRIPT_DIR/../../.state/wordpress}")"
[[ -s $STATE_DIR/env ]] || {
  echo "smoke: no $STATE_DIR/env: run scripts/wordpress/wordpress.sh up first" >&2
  exit 1
}
# shellcheck disable=SC1091
source "$STATE_DIR/env"
readonly API="$WORDPRESS_URL/wp-json"
readonly AUTH="$WORDPRESS_USER:$WORDPRESS_APP_PASSWORD"
readonly BODY=$(mktemp)
trap 'rm -f "$BODY"' EXIT

failures=0
pass() { printf 'ok    %s\n' "$1"; }
fail() {
  printf 'FAIL  %s\n' "$1"
  head -c 400 "$BODY"
  echo
  failures=$((failures + 1))
}

# request EXPECTED_STATUS DESCRIPTION curl-args… ; leaves the body in $BODY
request() {
  local expected=$1 what=$2 status
  shift 2
  status=$(curl -s -o "$BODY" -w '%{http_code}' --max-time 30 "$@" || true)
  if [[ $status == "$expected" ]]; then return 0; fi
  fail "$what: expected $expected, got ${status:-no answer}"
  return 1
}

json() { php -r '$d = json_decode(file_get_contents($argv[1]), true); echo eval("return " . $argv[2] . ";");' "$BODY" "$1"; }

if request 200 "GET /wp-json/" "$API/"; then
  routes=$(json 'count($d["routes"])')
  if ((routes > 100)) && [[ $(json 'in_array("wp/v2", $d["namespaces"]) ? "yes" : "no"') == yes ]]; then
    pass "GET /wp-json/ lists $routes routes"
  else fail "GET /wp-json/ lists $routes routes"; fi
fi

if request 200 "GET /wp/v2/posts" "$API/wp/v2/posts"; then
  if [[ $(json 'implode(",", array_column($d, "slug"))') == *seeded-post* ]]; then
    pass "GET /wp/v2/posts returns the seeded post"
  else fail "GET /wp/v2/posts has no seeded-post"; fi
fi

for collection in pages media blocks menu-items menus templates template-parts \
  "posts/$WORDPRESS_SEED_POST_ID/revisions" "posts/$WORDPRESS_SEED_POST_ID/autosaves"; do
  if request 200 "GET /wp/v2/$collection" -u "$AUTH" "$API/wp/v2/$collection"; then
    count=$(json 'count($d)')
    if ((count > 0)); then pass "GET /wp/v2/$collection has $count item(s)"; else fail "GET /wp/v2/$collection is empty"; fi
  fi
done

if request 201 "POST /wp/v2/posts (application password)" -u "$AUTH" -H 'Content-Type: application/json' \
  -d '{"title":"Smoke test post","status":"publish","content":"Created by smoke.sh"}' "$API/wp/v2/posts"; then
  created=$(json '$d["id"]')
  pass "POST /wp/v2/posts created post $created (201)"
  request 200 "DELETE /wp/v2/posts/$created?force=true" -u "$AUTH" -X DELETE "$API/wp/v2/posts/$created?force=true" &&
    pass "DELETE /wp/v2/posts/$created?force=true (200)"
fi

if request 200 "GET /wp/v2/posts/$WORDPRESS_SEED_POST_ID" "$API/wp/v2/posts/$WORDPRESS_SEED_POST_ID"; then
  link=$(json '$d["link"]')
  if request 200 "GET /oembed/1.0/embed?format=xml" -G --data-urlencode "url=$link" -d format=xml "$API/oembed/1.0/embed"; then
    if grep -q '<oembed>' "$BODY"; then pass "GET /oembed/1.0/embed?url=$link&format=xml"; else fail "oEmbed XML has no <oembed>"; fi
  fi
fi

if ((failures > 0)); then
  echo "smoke: $failures check(s) failed against $WORDPRESS_URL"
  exit 1
fi
echo "smoke: all checks passed against $WORDPRESS_URL"
