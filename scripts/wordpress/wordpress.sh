#!/usr/bin/env bash
# Real WordPress sites for the content site's contract tests, without systemd: Debian 12's own
# `wordpress` package (6.1) and the newest one in Debian's archive (7.1 from forky/sid: its .deb fetched
# with apt's own tools through a private apt configuration, unpacked into the state folder, run by
# bookworm's PHP 8.2). Each site has its own subfolder, port, database and env file; both use one
# private MariaDB (unix socket only), and each is served by `php -S` with a router script.
#
#   wordpress.sh up            install/fetch what is missing, start, provision; wait for every /wp-json/
#   wordpress.sh stop          stop every php server of the state folder (whole process groups) and mariadbd
#   wordpress.sh status        one line per site (exit 0 when every site answers)
#   wordpress.sh env [LINE]    `export WORDPRESS_…=…` lines of one site (default: the first, Debian 12's)
#   wordpress.sh reset         stop, then delete the state folder and the configs (the next `up` starts afresh)
#
# Environment: WORDPRESS_STATE_DIR (default <repo>/.state/wordpress), WORDPRESS_PORT (the first site's
# port, default 8080; the next site takes the next one), WORDPRESS_UP_TIMEOUT (seconds to wait for
# mariadbd and for each /wp-json/; default PLATFORM_START_TIMEOUT_MS, else 180).
set -euo pipefail

readonly SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
readonly SERVICE=wordpress STATE_DIR_VARIABLE=WORDPRESS_STATE_DIR
# shellcheck source=scripts/lib/service.sh
source "$SCRIPT_DIR/../lib/service.sh"
readonly HOST=127.0.0.1
readonly BASE_PORT="${WORDPRESS_PORT:-8080}"
[[ $BASE_PORT =~ ^[0-9]+$ ]] || { echo "wordpress: ERROR: WORDPRESS_PORT must be a number, not '$BASE_PORT'" >&2; exit 1; }
readonly LAST_PORT=8099
readonly UP_TIMEOUT="${WORDPRESS_UP_TIMEOUT:-$START_TIMEOUT_SECONDS}"
readonly SYSTEM_ROOT=/usr/share/wordpress
readonly SYSTEM_THEME=twentytwentythree
readonly ADMIN_USER=admin
readonly APT_PACKAGES=(wordpress wordpress-theme-twentytwentythree mariadb-server-core mariadb-client
  php-cli php-mysql php-xml php-mbstring curl)
# Where the newest WordPress comes from: the highest version of these suites wins (apt's own choice).
readonly ARCHIVE_MIRROR=http://deb.debian.org/debian
readonly ARCHIVE_SUITES=(forky sid)
# Debian's package links these PHP libraries instead of bundling them (wp-includes/PHPMailer, ID3);
# they are unpacked beside it so that its relative symlinks resolve inside the state folder.
readonly ARCHIVE_LIBRARIES=(libphp-phpmailer php-getid3)

readonly STATE_DIR="$(realpath -m "${WORDPRESS_STATE_DIR:-$REPO_ROOT/.state/wordpress}")"
readonly LOG_DIR="$STATE_DIR/logs"
readonly DATA_DIR="$STATE_DIR/mariadb/data"
readonly MARIADB_PID_FILE="$STATE_DIR/mariadb/mariadbd.pid"
readonly MARIADB_LOG="$STATE_DIR/mariadb/mariadbd.log" # in the folder mariadbd owns
readonly APT_DIR="$STATE_DIR/apt"
readonly ROUTER="$SCRIPT_DIR/router.php"
# Configs are named after a hash of the folder they belong to: two checkouts never share one.
short_name_for() { printf 'platform-api-%s' "$(printf '%s' "$1" | sha256sum | cut -c1-10)"; }

# The path goes into PHP string literals, and mariadb-install-db cannot handle spaces in it.
if [[ $STATE_DIR == *[\'\"\\\ ]* ]]; then
  echo "wordpress: ERROR: the state folder path must not contain spaces, quotes or backslashes: $STATE_DIR (set WORDPRESS_STATE_DIR)" >&2
  exit 1
fi

# A unix socket path must fit in 108 bytes; a deep state folder gets a short one in /tmp.
SOCKET="$STATE_DIR/mariadb/mariadbd.sock"
if ((${#SOCKET} > 100)); then SOCKET="/tmp/mariadbd-$(short_name_for "$STATE_DIR").sock"; fi
readonly SOCKET

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

# Ports `up` has chosen for sites it has not started yet.
RESERVED_PORTS=()
port_taken() { [[ " ${RESERVED_PORTS[*]} " == *" $1 "* ]] || port_in_use "$1"; }

# A zombie counts as exited: some init processes take seconds to reap the orphans.
is_running() { [[ -r /proc/$1/status ]] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

wait_for_exit() { # pid seconds
  local pid=$1 deadline=$((SECONDS + $2))
  while is_running "$pid"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

# `6.1.9+dfsg1-0+deb12u1` → `6.1.9`; `7.1.4+dfsg1-1` → `7.1.4`.
upstream_version() { sed -E 's/^[0-9]+://; s/[+~-].*$//' <<<"$1"; }
# `6.1.9` → `6.1`: the site's name and subfolder.
version_line() { cut -d. -f1,2 <<<"$1"; }

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
  # The packages' own services (mariadb, and apache2, which wordpress depends on) are left as Debian
  # configures them; this script runs private servers of its own and never uses them.
  local started=$SECONDS status=0
  {
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${APT_PACKAGES[@]}"
  } >"$LOG_DIR/apt.log" 2>&1 || status=$?
  if ((status != 0)); then
    log_tail "$LOG_DIR/apt.log"
    die "apt-get failed (exit $status); full log in $LOG_DIR/apt.log"
  fi
  log "packages installed in $((SECONDS - started)) s"
}

# --- the newest WordPress from Debian's archive ----------------------------------------------------
# A private apt configuration: its own sources (the suites above, `Architecture: all` indexes only),
# lists, cache and an empty dpkg status, so the machine's apt sources and package state are never
# read or changed. The system's apt.conf.d still applies (proxies, mirrors' settings).
apt_private() { # apt-get|apt-cache args…
  local tool=$1
  shift
  local sandbox=()
  # apt drops to _apt for downloads; when _apt cannot write the target folder it would warn and run as root.
  if is_root && ! runuser -u _apt -- test -w "$APT_DIR/debs" 2>/dev/null; then sandbox=(-o APT::Sandbox::User=root); fi
  "$tool" -q -o Dir::Etc::SourceList="$APT_DIR/sources.list" -o Dir::Etc::SourceParts="$APT_DIR/sources.list.d" \
    -o Dir::Etc::Preferences="$APT_DIR/preferences" -o Dir::Etc::PreferencesParts="$APT_DIR/preferences.d" \
    -o Dir::State::Lists="$APT_DIR/lists" -o Dir::State::status="$APT_DIR/status" -o Dir::Cache="$APT_DIR/cache" \
    -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= -o Acquire::Languages=none -o Debug::NoLocking=true \
    -o Acquire::Retries=2 -o Acquire::http::Timeout=30 "${sandbox[@]}" "$@"
}

# Fetches the newest `wordpress` .deb (and the theme it recommends, and the libraries it links) into
# <state>/apt/debs once; later `up`s use what is there (delete <state>/apt to look for a newer one).
ensure_archive_debs() {
  compgen -G "$APT_DIR/debs/wordpress_*.deb" >/dev/null && return 0
  local started
  started=$(date +%s%N)
  mkdir -p "$APT_DIR"/{lists/partial,cache/archives/partial,sources.list.d,preferences.d,debs}
  : >"$APT_DIR/status"
  local suite
  for suite in "${ARCHIVE_SUITES[@]}"; do
    echo "deb [arch=all target=Packages signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $ARCHIVE_MIRROR $suite main"
  done >"$APT_DIR/sources.list"
  is_root && runuser -u _apt -- test -x "$APT_DIR" 2>/dev/null && chown _apt "$APT_DIR/debs"
  log "fetching the newest wordpress .deb from Debian's ${ARCHIVE_SUITES[*]} (private apt configuration in $APT_DIR)"
  local apt_log="$LOG_DIR/apt-archive.log" status=0
  # A subshell for the cd; `|| exit` on each step because `set -e` does not apply inside `( … ) ||`.
  (
    cd "$APT_DIR/debs" || exit
    apt_private apt-get update || exit
    apt_private apt-get download wordpress || exit
    deb=$(compgen -G 'wordpress_*.deb' | head -n1)
    # The default theme is a separate package of the same source; the package recommends it.
    recommends=$(dpkg-deb -f "$deb" Recommends) || exit
    theme_package=$(grep -oE 'wordpress-theme-[a-z0-9-]+' <<<"$recommends" | head -n1)
    [[ -n $theme_package ]] || { echo "no wordpress-theme-* in Recommends: $recommends"; exit 1; }
    apt_private apt-get download "$theme_package=$(dpkg-deb -f "$deb" Version)" "${ARCHIVE_LIBRARIES[@]}"
  ) >"$apt_log" 2>&1 || status=$?
  if ((status != 0)); then
    log_tail "$apt_log"
    rm -f "$APT_DIR"/debs/*.deb
    die "could not fetch WordPress from Debian's archive (${ARCHIVE_SUITES[*]}); full log in $apt_log"
  fi
  # The indexes (~20 MB) only served this download; the .debs are what later `up`s use.
  rm -rf "$APT_DIR/lists" "$APT_DIR/cache"
  log "fetched $(cd "$APT_DIR/debs" && echo *.deb) in $(elapsed_since "$started") s"
}

# Unpacks the fetched .debs (dpkg-deb -x: no maintainer scripts, nothing installed) into the site's
# root/, again whenever the set of .debs changes.
unpack_archive_site() { # site_dir
  local root="$1/root" stamp
  stamp=$(cd "$APT_DIR/debs" && sha256sum -- *.deb)
  [[ -f $root/.unpacked && $(<"$root/.unpacked") == "$stamp" ]] && return 0
  rm -rf "$root"
  mkdir -p "$root"
  local deb
  for deb in "$APT_DIR"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
  # Every PHP file must resolve inside the tree; a dangling one means a library is missing above.
  local dangling
  dangling=$(find "$root/usr/share/wordpress" -name '*.php' -xtype l | head -n3)
  [[ -z $dangling ]] || die "unpacked WordPress has dangling PHP symlinks (a library missing from ARCHIVE_LIBRARIES?): $dangling"
  printf '%s\n' "$stamp" >"$root/.unpacked"
  log "unpacked $(cd "$APT_DIR/debs" && echo *.deb) into $root"
}

# --- sites -------------------------------------------------------------------------------------------
# A site is described by <state>/<line>/site.env (written by `up`): its version, its WordPress root
# (ABSPATH), its theme and where the theme's files are. `stop`, `status` and `env` read those files.
SITE=
SITE_DIR=
SITE_VERSION=
SITE_ROOT=
SITE_THEME=
SITE_THEME_DIR=
PREPARED_DIR=

site_dirs() {
  local file
  for file in "$STATE_DIR"/*/site.env; do [[ -f $file ]] && dirname "$file"; done
  return 0
}

# Sets the globals of one site; every function below works on the selected site.
select_site() { # site_dir
  SITE_DIR=$1
  SITE=$(basename "$SITE_DIR")
  SITE_VERSION=$SITE
  SITE_ROOT=''
  SITE_THEME=''
  SITE_THEME_DIR=''
  if [[ -f $SITE_DIR/site.env ]]; then
    # Our own file; every value is a version, a theme name or a path checked above.
    # shellcheck disable=SC1091
    source "$SITE_DIR/site.env"
  fi
  DB_NAME="wordpress_${SITE//./_}"
  DB_USER="wp_${SITE//./_}"
  CONTENT_DIR="$SITE_DIR/wp-content"
  PHP_PID_FILE="$SITE_DIR/php-server.pid"
  PHP_LOG="$SITE_DIR/logs/php-server.log"
  PORT_FILE="$SITE_DIR/php-server.port"
  SECRETS_FILE="$SITE_DIR/secrets.env"
  ENV_FILE="$SITE_DIR/env"
  # WordPress's ABSPATH as the site sees it: the package's files linked, and a wp-config.php of our own in
  # place of Debian's (which would read /etc/wordpress/config-<host>.php).
  ABSPATH_DIR="$SITE_DIR/abspath"
  CONFIG_FILE="$ABSPATH_DIR/wp-config.php"
  # Unique to this site: the php server's command line names its log.
  PHP_MARKER="error_log=$PHP_LOG"
  # The running server's port, else the last one the env file names.
  PORT=$(cat "$PORT_FILE" 2>/dev/null || sed -n 's#^WORDPRESS_URL=http://[^:]*:##p' "$ENV_FILE" 2>/dev/null || true)
  [[ $PORT =~ ^[0-9]+$ ]] || PORT=$BASE_PORT
  URL="http://$HOST:$PORT"
}

write_site_file() { # site_dir version root theme theme_dir
  mkdir -p "$1/logs"
  printf 'SITE_VERSION=%s\nSITE_ROOT=%s\nSITE_THEME=%s\nSITE_THEME_DIR=%s\n' "$2" "$3" "$4" "$5" >"$1/site.env.tmp"
  mv -f "$1/site.env.tmp" "$1/site.env"
}

system_version() { upstream_version "$(dpkg-query -W -f='${Version}' wordpress)"; }

# Debian 12's own package: its version from dpkg, its files where apt put them. Sets PREPARED_DIR.
prepare_system_site() {
  local version theme_dir
  version=$(system_version)
  theme_dir="$SYSTEM_ROOT/wp-content/themes/$SYSTEM_THEME"
  [[ -d $theme_dir ]] || theme_dir=$(dirname "$(find /usr/share/wordpress /var/lib/wordpress -path "*/themes/$SYSTEM_THEME/style.css" -print -quit 2>/dev/null)")
  [[ -f $theme_dir/style.css ]] || die "theme $SYSTEM_THEME not found (package wordpress-theme-$SYSTEM_THEME)"
  PREPARED_DIR="$STATE_DIR/$(version_line "$version")"
  write_site_file "$PREPARED_DIR" "$version" "$SYSTEM_ROOT" "$SYSTEM_THEME" "$theme_dir"
}

# The newest package of the archive, unpacked into the site's folder, with the theme it recommends.
# Sets PREPARED_DIR.
prepare_archive_site() {
  ensure_archive_debs
  local deb version theme wp_root
  deb=$(compgen -G "$APT_DIR/debs/wordpress_*.deb" | head -n1)
  version=$(upstream_version "$(dpkg-deb -f "$deb" Version)")
  [[ $(version_line "$version") != "$(version_line "$(system_version)")" ]] ||
    die "Debian's archive has no WordPress newer than the system's $(system_version) (found $version)"
  PREPARED_DIR="$STATE_DIR/$(version_line "$version")"
  unpack_archive_site "$PREPARED_DIR"
  theme=$(basename "$(compgen -G "$APT_DIR/debs/wordpress-theme-*.deb" | head -n1)" | sed -E 's/^wordpress-theme-([^_]+)_.*/\1/')
  wp_root="$PREPARED_DIR/root/usr/share/wordpress"
  [[ -f $wp_root/wp-content/themes/$theme/style.css ]] || die "theme $theme missing from the unpacked packages"
  write_site_file "$PREPARED_DIR" "$version" "$wp_root" "$theme" "$wp_root/wp-content/themes/$theme"
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

# --- MariaDB (one private instance, one database per site) ----------------------------------------
mariadb_client() { mariadb --no-defaults --socket="$SOCKET" --user="$(id -un)" "$@"; }
mariadb_ping() { mariadb-admin --no-defaults --socket="$SOCKET" --user="$(id -un)" --connect-timeout=2 ping >/dev/null 2>&1; }

# The system user mariadbd runs as: when root, the mysql user the mariadb-server package creates, unless it
# cannot reach the state folder (e.g. a checkout under /root) or is missing: then root itself.
mariadb_run_user() {
  if ! is_root; then
    id -un
    return
  fi
  if id mysql >/dev/null 2>&1 && runuser -u mysql -- test -x "$STATE_DIR" 2>/dev/null; then echo mysql; else echo root; fi
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
      --auth-root-authentication-method=socket --skip-test-db >"$LOG_DIR/mariadb-install-db.log" 2>&1 ||
      {
        log_tail "$LOG_DIR/mariadb-install-db.log"
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
  local started_pid=$! deadline=$((SECONDS + UP_TIMEOUT))
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
// Site folder: $SITE_DIR (WordPress $SITE_VERSION)
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
define('WP_AUTO_UPDATE_CORE', false);
\$table_prefix = 'wp_';
require_once ABSPATH . 'wp-settings.php';
PHP
  )
  ensure_abspath_dir
  [[ -f $CONFIG_FILE && $(<"$CONFIG_FILE") == "$content" ]] && return 0
  (umask 077 && printf '%s\n' "$content" >"$CONFIG_FILE.tmp") && mv -f "$CONFIG_FILE.tmp" "$CONFIG_FILE"
  log "wrote $CONFIG_FILE"
}

# The site's ABSPATH: a link to every entry of the WordPress root but its wp-config.php. The router and
# provision.php define ABSPATH as this folder before WordPress loads, so wp-load.php requires our config.
ensure_abspath_dir() {
  mkdir -p "$ABSPATH_DIR"
  local entry name
  for entry in "$SITE_ROOT"/* "$SITE_ROOT"/.htaccess; do
    name=${entry##*/}
    [[ -e $entry || -L $entry ]] || continue
    [[ $name == wp-config.php || $name == .htaccess ]] && continue
    [[ $(readlink "$ABSPATH_DIR/$name" 2>/dev/null) == "$entry" ]] || ln -sfn "$entry" "$ABSPATH_DIR/$name"
  done
}

ensure_content_dir() {
  mkdir -p "$CONTENT_DIR"/{themes,plugins,uploads,upgrade,languages}
  ln -sfn "$SITE_THEME_DIR" "$CONTENT_DIR/themes/$SITE_THEME"
}

# --- php -S ----------------------------------------------------------------------------------------
php_server_pid() { live_pid_from "$PHP_PID_FILE" "$PHP_MARKER"; }

# Stops every php -S of the selected site: the whole process group, since workers outlive the parent.
stop_php_server() {
  local pids
  pids=$( (php_server_pid || true; pids_matching "$PHP_MARKER") | sort -u)
  if [[ -n $pids ]]; then
    # shellcheck disable=SC2086
    terminate 5 $pids
    log "$SITE: php server stopped (pids $(echo $pids))"
  fi
  rm -f "$PHP_PID_FILE" "$PORT_FILE"
}

# Sets PORT and URL before the config (whose WP_HOME names the port) is written: the running
# server's port; else the preferred one (WORDPRESS_PORT + the site's position), which must be free
# when WORDPRESS_PORT is set; else the next free one up to 8099.
choose_port() { # preferred
  local preferred=$1
  if php_server_pid >/dev/null; then
    local running_port
    running_port=$(cat "$PORT_FILE" 2>/dev/null || echo "?")
    if [[ -n ${WORDPRESS_PORT:-} && $running_port != "$preferred" ]]; then
      die "WordPress $SITE runs on port $running_port; run \`stop\` before moving it to $preferred"
    fi
    PORT=$running_port
  else
    # Our own earlier instance that lost its pid file may hold the port: stop it.
    [[ -n $(pids_matching "$PHP_MARKER") ]] && stop_php_server
    PORT=$preferred
    if port_taken "$PORT"; then
      [[ -z ${WORDPRESS_PORT:-} ]] ||
        die "port $PORT is in use by another program (not this state folder's WordPress $SITE); choose another WORDPRESS_PORT"
      local candidate
      for candidate in $(seq $((PORT + 1)) $LAST_PORT); do
        if ! port_taken "$candidate"; then
          log "$SITE: port $PORT is in use by another program; using $candidate"
          PORT=$candidate
          break
        fi
      done
      port_taken "$PORT" && die "ports $preferred-$LAST_PORT are all in use; set WORDPRESS_PORT"
    fi
  fi
  URL="http://$HOST:$PORT"
}

start_php_server() {
  php_server_pid >/dev/null && return 0
  : >"$PHP_LOG"
  # setsid: its own process group (pid = group id), so `stop` reaches the workers too.
  PHP_CLI_SERVER_WORKERS=4 WORDPRESS_ABSPATH="$ABSPATH_DIR" WP_CONTENT_DIR="$CONTENT_DIR" \
    setsid php -d display_errors=0 -d log_errors=1 -d error_log="$PHP_LOG" \
    -d upload_max_filesize=64M -d post_max_size=64M -S "$HOST:$PORT" -t "$SITE_ROOT" "$ROUTER" </dev/null >>"$PHP_LOG" 2>&1 9>&- &
  echo $! >"$PHP_PID_FILE"
  echo "$PORT" >"$PORT_FILE"
  log "$SITE: php server started (pid $!, $URL)"
}

rest_index_status() { curl -s -o /dev/null -w '%{http_code}' --max-time "${2:-10}" "$1/wp-json/" || true; }

wait_for_rest() {
  local deadline=$((SECONDS + UP_TIMEOUT)) code
  while :; do
    code=$(rest_index_status "$URL" 10)
    [[ $code == 200 ]] && return 0
    if ! php_server_pid >/dev/null; then
      log_tail "$PHP_LOG"
      die "$SITE: the php server exited (last GET /wp-json/ answered ${code:-nothing})"
    fi
    if ((SECONDS >= deadline)); then
      log_tail "$PHP_LOG"
      log_tail "$MARIADB_LOG"
      die "$SITE: GET $URL/wp-json/ did not answer 200 within ${UP_TIMEOUT} s (last: ${code:-no answer})"
    fi
    sleep 0.2
  done
}

# --- provisioning ----------------------------------------------------------------------------------
provision() {
  local output
  output=$(
    WORDPRESS_ABSPATH="$ABSPATH_DIR" WORDPRESS_ROOT="$SITE_ROOT" WORDPRESS_THEME="$SITE_THEME" \
      WORDPRESS_URL="$URL" WORDPRESS_USER="$ADMIN_USER" \
      WORDPRESS_ADMIN_PASSWORD="$WORDPRESS_ADMIN_PASSWORD" WORDPRESS_ADMIN_EMAIL="admin@example.com" \
      WORDPRESS_APP_PASSWORD="$WORDPRESS_APP_PASSWORD" \
      php -d display_errors=stderr -d error_reporting='E_ALL & ~E_DEPRECATED' "$SCRIPT_DIR/provision.php" 2> >(sed "s/^/  $SITE: /" >&2)
  ) || die "$SITE: provisioning failed (see the messages above)"
  local app_password version
  app_password=$(sed -n 's/^WORDPRESS_APP_PASSWORD=//p' <<<"$output")
  version=$(sed -n 's/^WORDPRESS_VERSION=//p' <<<"$output")
  save_app_password "$app_password"
  [[ $version =~ ^[0-9.]+$ ]] || die "$SITE: provision.php reported no WordPress version"
  write_env_file "$version"
}

write_env_file() { # version
  local tmp="$ENV_FILE.tmp"
  (
    umask 077
    {
      echo "WORDPRESS_URL=$URL"
      echo "WORDPRESS_USER=$ADMIN_USER"
      echo "WORDPRESS_APP_PASSWORD=$WORDPRESS_APP_PASSWORD"
      echo "WORDPRESS_VERSION=$1"
    } >"$tmp"
  )
  mv -f "$tmp" "$ENV_FILE"
}

up_site() { # site_dir port (chosen by choose_port)
  local started
  started=$(date +%s%N)
  select_site "$1"
  PORT=$2
  URL="http://$HOST:$PORT"
  mkdir -p "$SITE_DIR/logs"
  load_or_create_secrets
  write_config
  ensure_content_dir
  ensure_database
  # The server starts first: it answers as soon as provisioning has committed.
  start_php_server
  provision
  wait_for_rest
  printf 'WordPress %s is up in %s s\n' "$SITE_VERSION" "$(elapsed_since "$started")"
  printf '  URL:                  %s\n  user:                 %s\n  application password: %s\n  env file:             %s\n' \
    "$URL" "$ADMIN_USER" "$WORDPRESS_APP_PASSWORD" "$ENV_FILE"
}

# --- the single-site layout of earlier versions of this script ------------------------------------
# It kept env, secrets.env, wp-content/ and php-server.* directly in the state folder and one database
# `wordpress`: stop its php server and remove those (the MariaDB data folder is the same and is kept).
stop_single_site_php_server() {
  local marker="error_log=$STATE_DIR/logs/php-server.log" pids
  pids=$( (live_pid_from "$STATE_DIR/php-server.pid" "$marker" || true; pids_matching "$marker") | sort -u)
  if [[ -n $pids ]]; then
    # shellcheck disable=SC2086
    terminate 5 $pids
    log "php server of the single-site layout stopped (pids $(echo $pids))"
  fi
}

migrate_single_site_layout() {
  [[ -f $STATE_DIR/secrets.env ]] || return 0
  log "moving from the single-site layout: removing $STATE_DIR/{env,secrets.env,wp-content,php-server.*}"
  stop_single_site_php_server
  if [[ -f $DATA_DIR/.initialised ]]; then
    start_mariadb
    mariadb_client -e "DROP DATABASE IF EXISTS \`wordpress\`; DROP USER IF EXISTS 'wordpress'@'localhost';"
  fi
  rm -rf "$STATE_DIR/env" "$STATE_DIR/wp-content" "$STATE_DIR/php-server.pid" "$STATE_DIR/php-server.port" \
    "$STATE_DIR/logs/php-server.log"
  rm -f "$STATE_DIR/secrets.env"
}

# --- commands ----------------------------------------------------------------------------------------
# One `up`/`stop`/`reset` at a time per state folder (test runners may start several at once).
# The daemons are started with fd 9 closed so they never hold the lock.

cmd_up() {
  local started
  started=$(date +%s%N)
  mkdir -p "$LOG_DIR" "$STATE_DIR/mariadb"
  ensure_packages
  migrate_single_site_layout
  local sites=()
  prepare_system_site
  sites+=("$PREPARED_DIR")
  prepare_archive_site
  sites+=("$PREPARED_DIR")
  # Every site's port first: a port conflict stops `up` before any server starts.
  local index ports=()
  for index in "${!sites[@]}"; do
    select_site "${sites[$index]}"
    choose_port $((BASE_PORT + index))
    ports+=("$PORT")
    RESERVED_PORTS+=("$PORT")
  done
  start_mariadb
  for index in "${!sites[@]}"; do up_site "${sites[$index]}" "${ports[$index]}"; done
  printf 'All %d WordPress sites are up in %s s\n' "${#sites[@]}" "$(elapsed_since "$started")"
}

cmd_stop() {
  local dir
  for dir in $(site_dirs); do
    select_site "$dir"
    stop_php_server
  done
  stop_single_site_php_server
  stop_mariadb
  echo "WordPress stopped"
}

cmd_status() {
  local mariadb_pid dir code all=0 count=0
  mariadb_pid=$(live_pid_from "$MARIADB_PID_FILE" "--datadir=$DATA_DIR" || true)
  for dir in $(site_dirs); do
    select_site "$dir"
    count=$((count + 1))
    local php_pid
    php_pid=$(php_server_pid || true)
    if [[ -n $php_pid && -n $mariadb_pid ]]; then
      code=$(rest_index_status "$URL" 10)
      if [[ $code == 200 ]]; then
        echo "running $SITE_VERSION $URL (php pid $php_pid, mariadbd pid $mariadb_pid)"
        continue
      fi
      echo "not ready $SITE_VERSION $URL: GET /wp-json/ answered ${code:-nothing} (php pid $php_pid, mariadbd pid $mariadb_pid)"
    else
      echo "stopped $SITE_VERSION $URL (php: ${php_pid:-not running}, mariadbd: ${mariadb_pid:-not running})"
    fi
    all=1
  done
  if ((count == 0)); then
    echo "stopped (no WordPress site in $STATE_DIR yet)"
    return 1
  fi
  return $all
}

# Everything this state folder holds goes: databases, uploads, credentials, logs, fetched .debs, configs.
cmd_reset() {
  cmd_stop
  if [[ -e $STATE_DIR && ! -d $STATE_DIR/mariadb && -z $(site_dirs) && ! -f $STATE_DIR/secrets.env ]]; then
    die "$STATE_DIR does not look like a WordPress state folder; not deleting it"
  fi
  rm -rf "$STATE_DIR"
  [[ $SOCKET == /tmp/* ]] && rm -f "$SOCKET"
  echo "WordPress state deleted ($STATE_DIR)"
}

cmd_env() { # [line]
  local dir
  if [[ -n ${1:-} ]]; then
    dir="$STATE_DIR/$1"
  else
    dir=$(site_dirs | head -n1)
  fi
  [[ -n $dir && -s $dir/env ]] || die "no WordPress ${1:-site} in $STATE_DIR yet (sites: $(site_dirs | xargs -rn1 basename | tr '\n' ' ')): run \`$0 up\` first"
  sed -e 's/^/export /' "$dir/env"
}

case "${1:-}" in
  up) take_lock && cmd_up ;;
  stop) take_lock && cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env "${2:-}" ;;
  reset) take_lock && cmd_reset ;;
  *)
    echo "usage: $0 up|stop|status|env [VERSION LINE, e.g. 7.1]|reset" >&2
    exit 2
    ;;
esac
