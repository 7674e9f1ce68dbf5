#!/usr/bin/env bash
# A real WordPress 6.1 (Debian's packages) for the content site's contract tests, without systemd:
# a private MariaDB (unix socket only) and `php -S` with a router script, all state in one folder.
#
#   wordpress.sh up      install what is missing, start, provision, seed; wait for /wp-json/
#   wordpress.sh stop    stop php and mariadbd
#   wordpress.sh status  running/stopped with the URL (exit 0/1)
#   wordpress.sh env     print `export WORDPRESS_…=…` lines (eval "$(wordpress.sh env)")
#   wordpress.sh reset   stop and delete the state folder and its config (the next `up` starts afresh)
#
# Environment: WORDPRESS_STATE_DIR (default <repo>/.state/wordpress), WORDPRESS_PORT (default 8080),
# WORDPRESS_UP_TIMEOUT (seconds to wait for /wp-json/, default 60).
set -euo pipefail

readonly SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
readonly HOST=127.0.0.1
# Without WORDPRESS_PORT, `up` moves on to the next free port when 8080 belongs to another program.
PORT="${WORDPRESS_PORT:-8080}"
URL="http://$HOST:$PORT"
[[ $PORT =~ ^[0-9]+$ ]] || { echo "wordpress: ERROR: WORDPRESS_PORT must be a number, not '$PORT'" >&2; exit 1; }
readonly UP_TIMEOUT="${WORDPRESS_UP_TIMEOUT:-60}"
readonly WP_ROOT=/usr/share/wordpress
readonly THEME=twentytwentythree
readonly ADMIN_USER=admin
readonly DB_NAME=wordpress
readonly DB_USER=wordpress
readonly APT_PACKAGES=(wordpress wordpress-theme-twentytwentythree mariadb-server-core mariadb-client
  php-cli php-mysql php-xml php-mbstring curl)

readonly STATE_DIR="$(realpath -m "${WORDPRESS_STATE_DIR:-$REPO_ROOT/.state/wordpress}")"
readonly DATA_DIR="$STATE_DIR/mariadb/data"
readonly MARIADB_PID_FILE="$STATE_DIR/mariadb/mariadbd.pid"
readonly MARIADB_LOG="$STATE_DIR/mariadb/mariadbd.log" # in the folder mariadbd owns
readonly CONTENT_DIR="$STATE_DIR/wp-content"
readonly PHP_PID_FILE="$STATE_DIR/php-server.pid"
readonly PHP_LOG="$STATE_DIR/logs/php-server.log"
readonly PORT_FILE="$STATE_DIR/php-server.port"
readonly SECRETS_FILE="$STATE_DIR/secrets.env"
readonly ENV_FILE="$STATE_DIR/env"
readonly ROUTER="$SCRIPT_DIR/router.php"
# One config per state folder, so two checkouts on one machine do not overwrite each other's.
readonly CONFIG_NAME="platform-api-$(printf '%s' "$STATE_DIR" | sha256sum | cut -c1-10)"
readonly CONFIG_FILE="/etc/wordpress/config-$CONFIG_NAME.php"

# The path goes into PHP string literals, and mariadb-install-db cannot handle spaces in it.
if [[ $STATE_DIR == *[\'\"\\\ ]* ]]; then
  echo "wordpress: ERROR: the state folder path must not contain spaces, quotes or backslashes: $STATE_DIR (set WORDPRESS_STATE_DIR)" >&2
  exit 1
fi

# A unix socket path must fit in 108 bytes; a deep state folder gets a short one in /tmp.
SOCKET="$STATE_DIR/mariadb/mariadbd.sock"
if ((${#SOCKET} > 100)); then SOCKET="/tmp/mariadbd-$CONFIG_NAME.sock"; fi
readonly SOCKET

log() { printf 'wordpress: %s\n' "$*" >&2; }
die() {
  printf 'wordpress: ERROR: %s\n' "$*" >&2
  exit 1
}
is_root() { [[ $(id -u) -eq 0 ]]; }

# Whether a live process has the marker as one exact argument of its command line.
has_argument() { grep -qszxF -- "$2" "/proc/$1/cmdline"; }

# The pid in a pid file if that process is alive and has the marker argument (so a recycled pid
# is never taken for ours); the stale file is removed otherwise.
live_pid_from() {
  local file=$1 marker=$2 pid
  [[ -s $file ]] || return 1
  pid=$(<"$file")
  if [[ $pid =~ ^[0-9]+$ ]] && has_argument "$pid" "$marker"; then
    echo "$pid"
    return 0
  fi
  rm -f "$file"
  return 1
}

# Pids of the processes with the marker argument: finds ours when a pid file is lost, and php -S
# workers left behind when their parent was killed alone.
pids_matching() {
  local file
  # The pattern comes from a file so that grep's own command line does not match it.
  for file in $(grep -lszxF -f <(printf '%s\n' "$1") /proc/[0-9]*/cmdline); do
    file=${file#/proc/}
    echo "${file%/cmdline}"
  done
  return 0
}

# Sends TERM to each pid's process group (to the pid alone if it leads none), waits up to the
# given seconds for all of them, then KILLs what is left.
terminate() { # seconds pid…
  local seconds=$1 pid
  shift
  (($# > 0)) || return 0
  for pid in "$@"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "$@"; do
    if ! wait_for_exit "$pid" "$seconds"; then
      log "pid $pid did not stop in $seconds s; killing it"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

port_in_use() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# A zombie counts as exited: some init processes take seconds to reap the orphans.
is_running() { [[ -r /proc/$1/status ]] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

wait_for_exit() { # pid seconds
  local pid=$1 deadline=$((SECONDS + $2))
  while is_running "$pid"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

log_tail() {
  [[ -f $1 ]] || return 0
  printf -- '--- last lines of %s ---\n' "$1" >&2
  tail -n 25 "$1" >&2
}

# --- packages ------------------------------------------------------------------------------------
missing_packages() {
  local installed
  installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${APT_PACKAGES[@]}" 2>/dev/null || true)
  local package
  for package in "${APT_PACKAGES[@]}"; do
    grep -qx "$package installed" <<<"$installed" || echo "$package"
  done
}

ensure_packages() {
  local missing
  mapfile -t missing < <(missing_packages)
  ((${#missing[@]} == 0)) && return 0
  if ! is_root; then
    die "missing Debian packages: ${missing[*]}
  Install them as root (once):
    apt-get update && apt-get install -y --no-install-recommends ${APT_PACKAGES[*]}"
  fi
  log "installing Debian packages: ${missing[*]}"
  local started=$SECONDS policy=/usr/sbin/policy-rc.d added_policy=
  # No daemons started by package scripts (apache2 comes as a dependency of wordpress and stays unused).
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && added_policy=1
  fi
  local status=0
  {
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${APT_PACKAGES[@]}"
  } >"$STATE_DIR/logs/apt.log" 2>&1 || status=$?
  [[ -n $added_policy ]] && rm -f "$policy"
  if ((status != 0)); then
    log_tail "$STATE_DIR/logs/apt.log"
    die "apt-get failed (exit $status); full log in $STATE_DIR/logs/apt.log"
  fi
  log "packages installed in $((SECONDS - started)) s"
}

# --- secrets -------------------------------------------------------------------------------------
random_token() { LC_ALL=C tr -dc 'A-Za-z0-9' </dev/urandom | head -c "${1:-32}" || true; }

load_or_create_secrets() {
  if [[ ! -s $SECRETS_FILE ]]; then
    (
      umask 077
      {
        echo "DB_PASSWORD=$(random_token 32)"
        echo "WORDPRESS_ADMIN_PASSWORD=$(random_token 24)"
        echo "WORDPRESS_APP_PASSWORD="
        local key
        for key in AUTH_KEY SECURE_AUTH_KEY LOGGED_IN_KEY NONCE_KEY AUTH_SALT SECURE_AUTH_SALT LOGGED_IN_SALT NONCE_SALT; do
          echo "$key=$(random_token 64)"
        done
      } >"$SECRETS_FILE"
    )
  fi
  # Every value is [A-Za-z0-9]*, so the file is safe to source.
  # shellcheck disable=SC1090
  source "$SECRETS_FILE"
}

save_app_password() {
  local password=$1
  [[ $password =~ ^[A-Za-z0-9]+$ ]] || die "unexpected application password format from provision.php"
  sed -i "s/^WORDPRESS_APP_PASSWORD=.*/WORDPRESS_APP_PASSWORD=$password/" "$SECRETS_FILE"
  WORDPRESS_APP_PASSWORD=$password
}

# --- MariaDB -------------------------------------------------------------------------------------
mariadb_client() { mariadb --no-defaults --socket="$SOCKET" --user="$(id -un)" "$@"; }
mariadb_ping() { mariadb-admin --no-defaults --socket="$SOCKET" --user="$(id -un)" --connect-timeout=2 ping >/dev/null 2>&1; }

# The system user mariadbd runs as: mysql when root (created if absent, as mariadb-server would),
# root itself when the mysql user cannot reach the state folder (e.g. a checkout under /root).
mariadb_run_user() {
  if ! is_root; then
    id -un
    return
  fi
  if ! id mysql >/dev/null 2>&1; then
    useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin mysql
    log "created the mysql system user"
  fi
  if runuser -u mysql -- test -x "$STATE_DIR" 2>/dev/null; then echo mysql; else echo root; fi
}

start_mariadb() {
  local pid
  if pid=$(live_pid_from "$MARIADB_PID_FILE" "--datadir=$DATA_DIR") && mariadb_ping; then
    return 0
  fi
  # A mariadbd of ours without a usable pid file, or one that no longer answers: stop it first.
  if [[ -n $(pids_matching "--datadir=$DATA_DIR") ]]; then
    log "stopping an unresponsive mariadbd of this state folder"
    stop_mariadb
  fi
  rm -f "$MARIADB_PID_FILE" "$SOCKET" "$SOCKET.lock"

  local run_user
  run_user=$(mariadb_run_user)
  mkdir -p "$DATA_DIR"
  if [[ ! -f $DATA_DIR/.initialised ]]; then
    log "initialising the MariaDB data folder"
    find "$DATA_DIR" -mindepth 1 -delete # a half-done earlier attempt holds no data worth keeping
    [[ $run_user == mysql ]] && chown mysql:mysql "$DATA_DIR"
    mariadb-install-db --no-defaults --user="$run_user" --datadir="$DATA_DIR" \
      --auth-root-authentication-method=socket --skip-test-db >"$STATE_DIR/logs/mariadb-install-db.log" 2>&1 ||
      {
        log_tail "$STATE_DIR/logs/mariadb-install-db.log"
        die "mariadb-install-db failed"
      }
    touch "$DATA_DIR/.initialised"
  fi
  [[ $run_user == mysql ]] && chown -R mysql:mysql "$STATE_DIR/mariadb"

  local user_option=()
  is_root && user_option=(--user="$run_user")
  # setsid: its own session, so it outlives this shell and never gets the terminal's signals.
  # flush-log-at-trx-commit=2: no fsync per commit; a crash of mariadbd itself loses nothing.
  setsid mariadbd --no-defaults "${user_option[@]}" --datadir="$DATA_DIR" --socket="$SOCKET" \
    --pid-file="$MARIADB_PID_FILE" --skip-networking --log-error="$MARIADB_LOG" \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=16M --innodb-flush-log-at-trx-commit=2 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
    </dev/null >>"$MARIADB_LOG" 2>&1 9>&- &
  local started_pid=$! deadline=$((SECONDS + 30))
  until mariadb_ping; do
    if ! kill -0 "$started_pid" 2>/dev/null || ((SECONDS >= deadline)); then
      log_tail "$MARIADB_LOG"
      die "mariadbd did not start (socket $SOCKET)"
    fi
    sleep 0.1
  done
  # mariadbd writes its pid file itself; fall back to ours if it has not yet.
  [[ -s $MARIADB_PID_FILE ]] || echo "$started_pid" >"$MARIADB_PID_FILE"
  log "mariadbd running (pid $(<"$MARIADB_PID_FILE"), socket $SOCKET)"
}

ensure_database() {
  mariadb_client <<SQL
CREATE DATABASE IF NOT EXISTS \`$DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
ALTER USER '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL PRIVILEGES ON \`$DB_NAME\`.* TO '$DB_USER'@'localhost';
SQL
}

stop_mariadb() {
  local pids
  pids=$( (live_pid_from "$MARIADB_PID_FILE" "--datadir=$DATA_DIR" || true; pids_matching "--datadir=$DATA_DIR") | sort -u)
  if [[ -n $pids ]]; then
    # SIGTERM is mariadbd's clean shutdown; it may take a while to flush.
    # shellcheck disable=SC2086
    terminate 60 $pids
    log "mariadbd stopped (pid $(echo $pids))"
  fi
  rm -f "$MARIADB_PID_FILE"
}

# --- WordPress config and content folder ---------------------------------------------------------
write_config() {
  local content
  content=$(
    cat <<PHP
<?php
// generated by scripts/wordpress/wordpress.sh — do not edit (rewritten on every \`up\`)
// State folder: $STATE_DIR
define('DB_NAME', '$DB_NAME');
define('DB_USER', '$DB_USER');
define('DB_PASSWORD', '$DB_PASSWORD');
define('DB_HOST', 'localhost:$SOCKET');
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
define('WP_HOME', '$URL');
define('WP_SITEURL', '$URL');
define('WP_CONTENT_DIR', '$CONTENT_DIR');
define('WP_CONTENT_URL', '$URL/wp-content');
define('WP_ENVIRONMENT_TYPE', 'local'); // application passwords over plain http
define('DISABLE_WP_CRON', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
define('FS_METHOD', 'direct');
define('WP_DEBUG', false);
define('AUTH_KEY', '$AUTH_KEY');
define('SECURE_AUTH_KEY', '$SECURE_AUTH_KEY');
define('LOGGED_IN_KEY', '$LOGGED_IN_KEY');
define('NONCE_KEY', '$NONCE_KEY');
define('AUTH_SALT', '$AUTH_SALT');
define('SECURE_AUTH_SALT', '$SECURE_AUTH_SALT');
define('LOGGED_IN_SALT', '$LOGGED_IN_SALT');
define('NONCE_SALT', '$NONCE_SALT');
PHP
  )
  [[ -f $CONFIG_FILE && $(<"$CONFIG_FILE") == "$content" ]] && return 0
  if ! mkdir -p /etc/wordpress 2>/dev/null || ! (umask 077 && printf '%s\n' "$content" >"$CONFIG_FILE") 2>/dev/null; then
    die "cannot write $CONFIG_FILE: run as root, or have root create it writable by $(id -un)"
  fi
  log "wrote $CONFIG_FILE"
}

ensure_content_dir() {
  mkdir -p "$CONTENT_DIR"/{themes,plugins,uploads,upgrade,languages}
  local theme_source="$WP_ROOT/wp-content/themes/$THEME"
  [[ -d $theme_source ]] || theme_source=$(dirname "$(find /usr/share/wordpress /var/lib/wordpress -path "*/themes/$THEME/style.css" -print -quit 2>/dev/null)")
  [[ -f $theme_source/style.css ]] || die "theme $THEME not found (package wordpress-theme-twentytwentythree)"
  [[ -e $CONTENT_DIR/themes/$THEME ]] || ln -sfn "$theme_source" "$CONTENT_DIR/themes/$THEME"
}

# --- php -S ----------------------------------------------------------------------------------------
# Unique to this state folder: the php server's command line names its log.
readonly PHP_MARKER="error_log=$PHP_LOG"

php_server_pid() { live_pid_from "$PHP_PID_FILE" "$PHP_MARKER"; }

# Stops every php -S of this state folder: the whole process group, since workers outlive the parent.
stop_php_server() {
  local pids
  pids=$( (php_server_pid || true; pids_matching "$PHP_MARKER") | sort -u)
  if [[ -n $pids ]]; then
    # shellcheck disable=SC2086
    terminate 5 $pids
    log "php server stopped (pids $(echo $pids))"
  fi
  rm -f "$PHP_PID_FILE" "$PORT_FILE"
}

# Sets PORT and URL before the config (whose WP_HOME names the port) is written: the running
# server's port; else WORDPRESS_PORT, which must be free; else 8080 or the next free one up to 8099.
choose_port() {
  if php_server_pid >/dev/null; then
    local running_port
    running_port=$(cat "$PORT_FILE" 2>/dev/null || echo "?")
    if [[ -n ${WORDPRESS_PORT:-} && $running_port != "$WORDPRESS_PORT" ]]; then
      die "this state folder's WordPress runs on port $running_port; run \`stop\` before moving it to $WORDPRESS_PORT"
    fi
    PORT=$running_port
  else
    # Our own earlier instance that lost its pid file may hold the port: stop it.
    [[ -n $(pids_matching "$PHP_MARKER") ]] && stop_php_server
    if port_in_use "$PORT"; then
      [[ -z ${WORDPRESS_PORT:-} ]] ||
        die "port $PORT is in use by another program (not this state folder's WordPress); choose another WORDPRESS_PORT"
      local candidate
      for candidate in $(seq $((PORT + 1)) 8099); do
        if ! port_in_use "$candidate"; then
          log "port $PORT is in use by another program; using $candidate"
          PORT=$candidate
          break
        fi
      done
      port_in_use "$PORT" && die "ports 8080-8099 are all in use; set WORDPRESS_PORT"
    fi
  fi
  URL="http://$HOST:$PORT"
}

start_php_server() {
  php_server_pid >/dev/null && return 0
  : >"$PHP_LOG"
  # setsid: its own process group (pid = group id), so `stop` reaches the workers too.
  PHP_CLI_SERVER_WORKERS=4 WORDPRESS_CONFIG="$CONFIG_NAME" WP_CONTENT_DIR="$CONTENT_DIR" \
    setsid php -d display_errors=0 -d log_errors=1 -d error_log="$PHP_LOG" \
    -d upload_max_filesize=64M -d post_max_size=64M -S "$HOST:$PORT" -t "$WP_ROOT" "$ROUTER" </dev/null >>"$PHP_LOG" 2>&1 9>&- &
  echo $! >"$PHP_PID_FILE"
  echo "$PORT" >"$PORT_FILE"
  log "php server started (pid $!, $URL)"
}

rest_index_status() { curl -s -o /dev/null -w '%{http_code}' --max-time "${1:-10}" "$URL/wp-json/" || true; }

wait_for_rest() {
  local deadline=$((SECONDS + UP_TIMEOUT)) code
  while :; do
    code=$(rest_index_status 10)
    [[ $code == 200 ]] && return 0
    if ! php_server_pid >/dev/null; then
      log_tail "$PHP_LOG"
      die "the php server exited (last GET /wp-json/ answered ${code:-nothing})"
    fi
    if ((SECONDS >= deadline)); then
      log_tail "$PHP_LOG"
      log_tail "$MARIADB_LOG"
      die "GET $URL/wp-json/ did not answer 200 within ${UP_TIMEOUT} s (last: ${code:-no answer})"
    fi
    sleep 0.2
  done
}

# --- provisioning ----------------------------------------------------------------------------------
provision() {
  local output
  output=$(
    WORDPRESS_CONFIG="$CONFIG_NAME" WORDPRESS_URL="$URL" WORDPRESS_USER="$ADMIN_USER" \
      WORDPRESS_ADMIN_PASSWORD="$WORDPRESS_ADMIN_PASSWORD" WORDPRESS_ADMIN_EMAIL="admin@example.com" \
      WORDPRESS_APP_PASSWORD="$WORDPRESS_APP_PASSWORD" \
      php -d display_errors=stderr -d error_reporting='E_ALL & ~E_DEPRECATED' "$SCRIPT_DIR/provision.php"
  ) || die "provisioning failed (see the messages above)"
  local app_password seeds
  app_password=$(sed -n 's/^WORDPRESS_APP_PASSWORD=//p' <<<"$output")
  save_app_password "$app_password"
  seeds=$(grep '^WORDPRESS_SEED_' <<<"$output" || true)
  write_env_file "$seeds"
}

write_env_file() {
  local tmp="$ENV_FILE.tmp"
  (
    umask 077
    {
      echo "WORDPRESS_URL=$URL"
      echo "WORDPRESS_USER=$ADMIN_USER"
      echo "WORDPRESS_APP_PASSWORD=$WORDPRESS_APP_PASSWORD"
      if [[ -n $1 ]]; then echo "$1"; fi
    } >"$tmp"
  )
  mv -f "$tmp" "$ENV_FILE"
}

# --- commands ----------------------------------------------------------------------------------------
# One `up`/`stop`/`reset` at a time per state folder (test runners may start several at once).
# The daemons are started with fd 9 closed so they never hold the lock.
take_lock() {
  mkdir -p "$STATE_DIR"
  exec 9>"$STATE_DIR/.lock"
  flock -w 300 9 || die "another wordpress.sh holds $STATE_DIR/.lock for over 300 s"
}

cmd_up() {
  local started_ns
  started_ns=$(date +%s%N)
  mkdir -p "$STATE_DIR/logs" "$STATE_DIR/mariadb"
  ensure_packages
  load_or_create_secrets
  choose_port
  write_config
  ensure_content_dir
  start_mariadb
  ensure_database
  # The server starts first: it answers as soon as provisioning has committed.
  start_php_server
  provision
  wait_for_rest
  local elapsed_ms=$((($(date +%s%N) - started_ns) / 1000000))
  printf 'WordPress is up in %d.%03d s\n' $((elapsed_ms / 1000)) $((elapsed_ms % 1000))
  printf '  URL:                  %s\n  user:                 %s\n  application password: %s\n  env file:             %s\n' \
    "$URL" "$ADMIN_USER" "$WORDPRESS_APP_PASSWORD" "$ENV_FILE"
}

cmd_stop() {
  stop_php_server
  stop_mariadb
  echo "WordPress stopped"
}

cmd_status() {
  local php_pid mariadb_pid code
  php_pid=$(php_server_pid || true)
  mariadb_pid=$(live_pid_from "$MARIADB_PID_FILE" "--datadir=$DATA_DIR" || true)
  if [[ -n $php_pid && -n $mariadb_pid ]]; then
    local url="http://$HOST:$(cat "$PORT_FILE" 2>/dev/null || echo "$PORT")"
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$url/wp-json/" || true)
    if [[ $code == 200 ]]; then
      echo "running $url (php pid $php_pid, mariadbd pid $mariadb_pid)"
      return 0
    fi
    echo "not ready $url: GET /wp-json/ answered ${code:-nothing} (php pid $php_pid, mariadbd pid $mariadb_pid)"
    return 1
  fi
  echo "stopped $URL (php: ${php_pid:-not running}, mariadbd: ${mariadb_pid:-not running})"
  return 1
}

# Everything this state folder holds goes: database, uploads, credentials, logs, and its config.
cmd_reset() {
  cmd_stop
  if [[ -e $STATE_DIR && ! -f $STATE_DIR/secrets.env && ! -d $STATE_DIR/mariadb ]]; then
    die "$STATE_DIR does not look like a WordPress state folder; not deleting it"
  fi
  rm -rf "$STATE_DIR"
  [[ $SOCKET == /tmp/* ]] && rm -f "$SOCKET"
  rm -f "$CONFIG_FILE"
  echo "WordPress state deleted ($STATE_DIR, $CONFIG_FILE)"
}

cmd_env() {
  [[ -s $ENV_FILE ]] || die "no $ENV_FILE yet: run \`$0 up\` first"
  sed -e 's/^/export /' "$ENV_FILE"
}

case "${1:-}" in
  up) take_lock && cmd_up ;;
  stop) take_lock && cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  reset) take_lock && cmd_reset ;;
  *)
    echo "usage: $0 up|stop|status|env|reset" >&2
    exit 2
    ;;
esac
