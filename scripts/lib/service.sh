# shellcheck shell=bash
# Helpers the service scripts (scripts/postgres/postgres.sh, scripts/wordpress/wordpress.sh) share.
# Source it after setting SERVICE (the name messages start with), STATE_DIR_VARIABLE (the environment
# variable that moves the state folder) and, for port_in_use, HOST.

log() { printf '%s: %s\n' "$SERVICE" "$*" >&2; }
# How long a service may take to start, in seconds: PLATFORM_START_TIMEOUT_MS (the test suites' setting,
# default 3 minutes, sized for a busy 2-core machine), unless the script's own variable says otherwise.
if [[ ${PLATFORM_START_TIMEOUT_MS:-} =~ ^[0-9]+$ ]]; then
  START_TIMEOUT_SECONDS=$(((PLATFORM_START_TIMEOUT_MS + 999) / 1000))
else
  START_TIMEOUT_SECONDS=180
fi
readonly START_TIMEOUT_SECONDS

die() {
  printf '%s: ERROR: %s\n' "$SERVICE" "$*" >&2
  exit 1
}
is_root() { [[ $(id -u) -eq 0 ]]; }

log_tail() {
  [[ -f $1 ]] || return 0
  printf -- '--- last lines of %s ---\n' "$1" >&2
  tail -n 25 "$1" >&2
}

elapsed_since() { # start in ns → "1.234"
  local ms=$((($(date +%s%N) - $1) / 1000000))
  printf '%d.%03d' $((ms / 1000)) $((ms % 1000))
}

port_in_use() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# Serialises runs of one script on one state folder (fd 9 stays open until the script exits).
take_lock() {
  if ! mkdir -p "$STATE_DIR" 2>/dev/null || ! { exec 9>"$STATE_DIR/.lock"; } 2>/dev/null; then
    die "cannot write $STATE_DIR/.lock: the state folder belongs to another user (set $STATE_DIR_VARIABLE)"
  fi
  flock -w 300 9 || die "another $SERVICE script holds $STATE_DIR/.lock for over 300 s"
}
