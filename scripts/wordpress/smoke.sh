#!/usr/bin/env bash
# End-to-end check of the WordPress sites brought up by wordpress.sh: for each env file it wrote
# (<state>/<version line>/env), checks over real HTTP that the REST index, the collections, an
# authenticated create with a revision (cleaned up afterwards), the theme's templates and oEmbed XML
# answer as the site contract tests expect. Exit 0 when every check passed on every site, 1 otherwise.
set -euo pipefail

readonly SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly STATE_DIR="$(realpath -m "${WORDPRESS_STATE_DIR:-$SCRIPT_DIR/../../.state/wordpress}")"
readonly BODY=$(mktemp)
trap 'rm -f "$BODY"' EXIT

env_files=("$STATE_DIR"/*/env)
[[ -s ${env_files[0]} ]] || {
  echo "smoke: no $STATE_DIR/*/env: run scripts/wordpress/wordpress.sh up first" >&2
  exit 1
}

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

smoke_site() {
  local API="$WORDPRESS_URL/wp-json" AUTH="$WORDPRESS_USER:$WORDPRESS_APP_PASSWORD"
  echo "--- WordPress $WORDPRESS_VERSION at $WORDPRESS_URL"

  if request 200 "GET /wp-json/" "$API/"; then
    local routes
    routes=$(json 'count($d["routes"])')
    if ((routes > 100)) && [[ $(json 'in_array("wp/v2", $d["namespaces"]) ? "yes" : "no"') == yes ]]; then
      pass "GET /wp-json/ lists $routes routes"
    else fail "GET /wp-json/ lists $routes routes"; fi
  fi

  local collection
  for collection in posts pages media blocks menu-items menus; do
    request 200 "GET /wp/v2/$collection" -u "$AUTH" "$API/wp/v2/$collection" && pass "GET /wp/v2/$collection ($(json 'count($d)') item(s))"
  done
  # The active block theme's files give templates and template parts without any content of ours.
  for collection in templates template-parts; do
    if request 200 "GET /wp/v2/$collection" -u "$AUTH" "$API/wp/v2/$collection"; then
      local count
      count=$(json 'count(array_filter($d, fn ($t) => $t["source"] === "theme"))')
      if ((count > 0)); then pass "GET /wp/v2/$collection has $count from the theme"; else fail "GET /wp/v2/$collection has none from the theme"; fi
    fi
  done

  if request 201 "POST /wp/v2/posts (application password)" -u "$AUTH" -H 'Content-Type: application/json' \
    -d '{"title":"Smoke test post","status":"publish","content":"Created by smoke.sh"}' "$API/wp/v2/posts"; then
    local created link
    created=$(json '$d["id"]')
    link=$(json '$d["link"]')
    pass "POST /wp/v2/posts created post $created (201)"
    request 200 "update post $created" -u "$AUTH" -H 'Content-Type: application/json' \
      -d '{"content":"Edited by smoke.sh"}' "$API/wp/v2/posts/$created" &&
      request 200 "GET /wp/v2/posts/$created/revisions" -u "$AUTH" "$API/wp/v2/posts/$created/revisions" &&
      pass "post $created has $(json 'count($d)') revision(s)"
    if request 200 "GET /oembed/1.0/embed?format=xml" -G --data-urlencode "url=$link" -d format=xml "$API/oembed/1.0/embed"; then
      if grep -q '<oembed>' "$BODY"; then pass "GET /oembed/1.0/embed?url=$link&format=xml"; else fail "oEmbed XML has no <oembed>"; fi
    fi
    request 200 "DELETE /wp/v2/posts/$created?force=true" -u "$AUTH" -X DELETE "$API/wp/v2/posts/$created?force=true" &&
      pass "DELETE /wp/v2/posts/$created?force=true (200)"
  fi
}

for env_file in "${env_files[@]}"; do
  (
    # shellcheck disable=SC1090
    source "$env_file"
    smoke_site
    exit "$failures"
  ) || failures=$((failures + $?))
done

if ((failures > 0)); then
  echo "smoke: $failures check(s) failed"
  exit 1
fi
echo "smoke: all checks passed on ${#env_files[@]} site(s)"
