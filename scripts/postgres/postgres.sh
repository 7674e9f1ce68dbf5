#!/usr/bin/env bash
# A private PostgreSQL for the server's and the contract suite's PostgreSQL runs, without systemd:
# Debian's own server package, one throwaway cluster (initdb + pg_ctl) in a git-ignored state folder,
# listening on 127.0.0.1 and on a unix socket inside that folder, with a `test` database.
#
#   postgres.sh up       install what is missing, initialise once, start, create `test`; write the env file
#   postgres.sh stop     stop the cluster (fast shutdown)
#   postgres.sh status   "running …" exit 0 (it answers a query over TCP), or "stopped …" exit 1
#   postgres.sh env      `export PLATFORM_TEST_DATABASE_URL=…`:  eval "$(bash scripts/postgres/postgres.sh env)"
#   postgres.sh reset    stop, then delete the cluster and the state folder (the next `up` starts afresh)
#
# Environment: POSTGRES_STATE_DIR (default <repo>/.state/postgres), POSTGRES_PORT (unset: this state
# folder's own port, 15432-16431 from a hash of the folder's path, or the next free one when another
# program has it; set: that port or an error), POSTGRES_UP_TIMEOUT (seconds `pg_ctl start` may take;
# default PLATFORM_START_TIMEOUT_MS, else 180).
#
# Each checkout (each state folder) has its own cluster, socket, password and port, so two checkouts
# testing at once never meet; whatever needs the URL reads it from the env file (`postgres.sh env`).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/../.." && pwd)"
readonly SERVICE=postgres STATE_DIR_VARIABLE=POSTGRES_STATE_DIR
# shellcheck source=scripts/lib/service.sh
source "$SCRIPT_DIR/../lib/service.sh"
readonly SCRIPT_DIR REPO_ROOT
readonly HOST=127.0.0.1
# Ports of the private clusters: below Linux's ephemeral ports (32768-60999), away from 5432 (any other
# PostgreSQL on the machine, another checkout's included).
readonly FIRST_PORT=15432 PORT_COUNT=1000
readonly DB_NAME=test DB_USER=postgres
readonly UP_TIMEOUT="${POSTGRES_UP_TIMEOUT:-$START_TIMEOUT_SECONDS}"
# `postgresql` is Debian's metapackage for its supported server version (15 on Debian 12).
readonly APT_PACKAGES=(postgresql)

STATE_DIR="$(realpath -m "${POSTGRES_STATE_DIR:-$REPO_ROOT/.state/postgres}")"
readonly STATE_DIR
readonly ENV_FILE="$STATE_DIR/env"
readonly SECRETS_FILE="$STATE_DIR/secrets.env"
readonly LOG_DIR="$STATE_DIR/logs"
# The cluster (data folder, server log, socket) lives in $STATE_DIR/cluster, owned by the server's
# user; when that user cannot reach the state folder (a checkout under /root), in its home instead,
# named after a hash of the state folder, and $STATE_DIR/cluster is a symlink to it.
readonly CLUSTER_LINK="$STATE_DIR/cluster"
STATE_HASH=$(printf '%s' "$STATE_DIR" | sha256sum | cut -c1-10)
readonly STATE_HASH
readonly FALLBACK_CLUSTER_DIR="/var/lib/postgresql/platform-api-$STATE_HASH"
# This state folder's own port: the same on every start, and another checkout's only by a 1-in-1000 chance
# (then, or when any other program holds it, `up` takes the next free one and says so).
readonly OWN_PORT=$((FIRST_PORT + 16#${STATE_HASH:0:8} % PORT_COUNT))

if [[ ${POSTGRES_PORT:-} && ! ${POSTGRES_PORT} =~ ^[0-9]+$ ]]; then
  echo "postgres: ERROR: POSTGRES_PORT must be a number, not '$POSTGRES_PORT'" >&2
  exit 1
fi

# --- packages ------------------------------------------------------------------------------------
# The newest installed server's bin folder (initdb, pg_ctl, postgres, psql, pg_isready), if any.
server_bin_dir() {
  local dir
  dir=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n1)
  [[ -n $dir && -x $dir/initdb && -x $dir/pg_ctl && -x $dir/postgres && -x $dir/psql ]] || return 1
  echo "$dir"
}

ensure_packages() {
  if BIN_DIR=$(server_bin_dir); then return 0; fi
  if ! is_root || ! command -v apt-get >/dev/null; then
    die "PostgreSQL's server is not installed (no /usr/lib/postgresql/*/bin/initdb)
  Install it as root (once):
    apt-get update && apt-get install -y --no-install-recommends ${APT_PACKAGES[*]}"
  fi
  mkdir -p "$LOG_DIR"
  log "installing Debian packages: ${APT_PACKAGES[*]}"
  local started=$SECONDS policy=/usr/sbin/policy-rc.d added_policy=
  # No daemon started by the package scripts: without it, the package would start its own cluster
  # (15/main on 5432) through invoke-rc.d. Ours is started below, in the state folder.
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && added_policy=1
  fi
  local status=0
  {
    apt-get update -q &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 \
        "${APT_PACKAGES[@]}"
  } >"$LOG_DIR/apt.log" 2>&1 || status=$?
  [[ -n $added_policy ]] && rm -f "$policy"
  if ((status != 0)); then
    log_tail "$LOG_DIR/apt.log"
    die "apt-get failed (exit $status); full log in $LOG_DIR/apt.log"
  fi
  BIN_DIR=$(server_bin_dir) || die "apt-get installed ${APT_PACKAGES[*]} but no server binaries were found"
  log "packages installed in $((SECONDS - started)) s"
}

# --- the server's user and the cluster folder --------------------------------------------------------
# initdb and postgres refuse to run as root: as root, the cluster belongs to the `postgres` system
# user (created if absent, as the package would); otherwise to whoever runs this script.
server_user() {
  if is_root; then echo postgres; else id -un; fi
}

ensure_server_user() {
  is_root || return 0
  id postgres >/dev/null 2>&1 && return 0
  useradd --system --user-group --home-dir /var/lib/postgresql --shell /bin/bash postgres
  log "created the postgres system user"
}

# Runs a command as the server's user, from / (that user may not be able to enter the current folder).
as_server_user() {
  if is_root; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && "$@")
  fi
}

# Sets CLUSTER_DIR (and DATA_DIR, SERVER_LOG, SOCKET_DIR). Decided once, at the first `up`: the
# symlink or folder at $STATE_DIR/cluster says where the cluster is from then on.
select_cluster_dir() {
  if [[ -L $CLUSTER_LINK ]]; then
    CLUSTER_DIR=$(readlink "$CLUSTER_LINK")
  else
    CLUSTER_DIR=$CLUSTER_LINK
  fi
  DATA_DIR="$CLUSTER_DIR/data"
  SERVER_LOG="$CLUSTER_DIR/postgres.log"
  SOCKET_DIR="$CLUSTER_DIR"
}

# The cluster folder must be reachable by the server's user, and the socket path must fit in the
# 107 bytes of a unix socket address (`.s.PGSQL.<port>` is appended).
cluster_dir_usable() { # dir
  ((${#1} + 16 <= 107)) || return 1
  is_root || return 0
  runuser -u postgres -- test -x "$(dirname "$1")" 2>/dev/null
}

prepare_cluster_dir() {
  mkdir -p "$STATE_DIR"
  if [[ ! -e $CLUSTER_LINK && ! -L $CLUSTER_LINK ]] && ! cluster_dir_usable "$CLUSTER_LINK"; then
    is_root || die "the socket path under $CLUSTER_LINK is too long; set POSTGRES_STATE_DIR to a shorter folder"
    log "the postgres user cannot use $CLUSTER_LINK (state folder out of its reach, or the path too long): the cluster goes to $FALLBACK_CLUSTER_DIR"
    mkdir -p "$FALLBACK_CLUSTER_DIR"
    ln -sfn "$FALLBACK_CLUSTER_DIR" "$CLUSTER_LINK"
  fi
  select_cluster_dir
  mkdir -p "$CLUSTER_DIR"
  is_root && chown postgres:postgres "$CLUSTER_DIR"
  chmod 700 "$CLUSTER_DIR"
}

# --- secrets -------------------------------------------------------------------------------------------
# The superuser's password for TCP connections (scram-sha-256): other local users of the machine must
# not get a superuser session just by knowing the port. The unix socket (mode 700 folder) trusts.
load_or_create_secrets() {
  if [[ ! -s $SECRETS_FILE ]]; then
    (
      umask 077
      printf 'POSTGRES_PASSWORD=%s\n' "$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')" >"$SECRETS_FILE"
    )
  fi
  POSTGRES_PASSWORD=$(sed -n 's/^POSTGRES_PASSWORD=//p' "$SECRETS_FILE")
  [[ $POSTGRES_PASSWORD =~ ^[0-9a-f]{32}$ ]] || die "$SECRETS_FILE is damaged; run \`$0 reset\`"
}

# --- the server process -----------------------------------------------------------------------------------
# The postmaster's pid from its lock file, if that process is alive and runs this data folder (a
# recycled pid is never taken for ours: its command line must have the data folder as one argument).
postmaster_pid() {
  local pid_file="$DATA_DIR/postmaster.pid" pid
  [[ -s $pid_file ]] || return 1
  pid=$(head -n1 "$pid_file")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  grep -qszxF -- "$DATA_DIR" "/proc/$pid/cmdline" || return 1
  echo "$pid"
}

# The port of the running postmaster (line 4 of postmaster.pid).
running_port() { sed -n 4p "$DATA_DIR/postmaster.pid" 2>/dev/null; }

psql_socket() { # port, psql args…
  local port=$1
  shift
  "$BIN_DIR/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$SOCKET_DIR" -p "$port" -U "$DB_USER" "$@"
}

database_url() { printf 'postgres://%s:%s@%s:%s/%s' "$DB_USER" "$POSTGRES_PASSWORD" "$HOST" "$1" "$DB_NAME"; }

# What the suites do: a query over TCP with the password, on the `test` database.
answers_over_tcp() { # port
  [[ -n ${POSTGRES_PASSWORD:-} ]] || return 1
  PGCONNECT_TIMEOUT=5 "$BIN_DIR/psql" -X -q -A -t -c 'select 1' "$(database_url "$1")" >/dev/null 2>&1
}

choose_port() {
  if [[ -n ${POSTGRES_PORT:-} ]]; then
    port_in_use "$POSTGRES_PORT" && die "port $POSTGRES_PORT is in use by another program; choose another POSTGRES_PORT"
    PORT=$POSTGRES_PORT
    return 0
  fi
  local offset candidate
  for ((offset = 0; offset < PORT_COUNT; offset++)); do
    candidate=$((FIRST_PORT + (OWN_PORT - FIRST_PORT + offset) % PORT_COUNT))
    if ! port_in_use "$candidate"; then
      ((candidate == OWN_PORT)) || log "port $OWN_PORT (this checkout's) is in use by another program; using $candidate"
      PORT=$candidate
      return 0
    fi
  done
  die "ports $FIRST_PORT-$((FIRST_PORT + PORT_COUNT - 1)) are all in use; set POSTGRES_PORT"
}

initialise_cluster() {
  [[ -f $CLUSTER_DIR/.initialised ]] && return 0
  log "initialising the cluster in $DATA_DIR"
  # A half-done earlier attempt holds no data worth keeping.
  rm -rf "$DATA_DIR"
  local locale=C
  locale -a 2>/dev/null | grep -qix 'c\.utf-\?8' && locale=C.UTF-8
  # --no-sync: a throwaway cluster. Local (socket) connections are trusted; TCP needs the password,
  # which is set once the server runs.
  as_server_user "$BIN_DIR/initdb" --pgdata="$DATA_DIR" --username="$DB_USER" --encoding=UTF8 --locale="$locale" \
    --auth-local=trust --auth-host=scram-sha-256 --no-sync --no-instructions >"$CLUSTER_DIR/initdb.log" 2>&1 || {
    log_tail "$CLUSTER_DIR/initdb.log"
    die "initdb failed"
  }
  printf "\n# Written by scripts/postgres/postgres.sh on every start.\ninclude_if_exists = 'platform-api.conf'\n" \
    >>"$DATA_DIR/postgresql.conf"
  touch "$CLUSTER_DIR/.initialised"
}

# Settings of a throwaway test cluster, rewritten before every start (the port may change).
write_settings() {
  local tmp="$DATA_DIR/platform-api.conf.tmp"
  cat >"$tmp" <<CONF
# generated by scripts/postgres/postgres.sh — rewritten before every start
listen_addresses = '$HOST'
port = $PORT
unix_socket_directories = '$SOCKET_DIR'
unix_socket_permissions = 0700
# A throwaway cluster for tests: speed over durability. A crash of the machine may lose or corrupt
# it; \`reset\` makes a new one. (The server's tests create and drop a schema per test file.)
fsync = off
synchronous_commit = off
full_page_writes = off
wal_level = minimal
max_wal_senders = 0
# Test runs open pools from several processes at once (vitest forks, reference servers).
max_connections = 200
logging_collector = off
log_min_messages = warning
log_line_prefix = '%m [%p] %q%u@%d '
CONF
  is_root && chown postgres:postgres "$tmp"
  mv -f "$tmp" "$DATA_DIR/platform-api.conf"
}

start_server() {
  local pid port
  if pid=$(postmaster_pid); then
    port=$(running_port)
    if [[ -n ${POSTGRES_PORT:-} && $port != "$POSTGRES_PORT" ]]; then
      die "PostgreSQL runs on port $port; run \`$0 stop\` before moving it to $POSTGRES_PORT"
    fi
    if "$BIN_DIR/pg_isready" -q -h "$SOCKET_DIR" -p "$port" -U "$DB_USER" -d postgres -t 10; then
      PORT=$port
      return 0
    fi
    log "the running postmaster (pid $pid) does not answer; restarting it"
    stop_server
  fi
  # Lock files left by a killed postmaster: postgres itself would refuse to start while their pid is
  # alive (recycled by another process, or a zombie not yet reaped). The socket folder is ours alone.
  rm -f "$DATA_DIR/postmaster.pid" "$SOCKET_DIR"/.s.PGSQL.*
  choose_port
  write_settings
  local started
  started=$(date +%s%N)
  # pg_ctl puts the postmaster in its own session (setsid): a Ctrl-C in this terminal never reaches it.
  # fd 9 (the lock) is closed so the server never holds it.
  if ! as_server_user "$BIN_DIR/pg_ctl" start --pgdata="$DATA_DIR" --log="$SERVER_LOG" --wait \
    --timeout="$UP_TIMEOUT" --silent 9>&-; then
    log_tail "$SERVER_LOG"
    die "PostgreSQL did not start (port $PORT, log $SERVER_LOG)"
  fi
  log "PostgreSQL started in $(elapsed_since "$started") s (pid $(postmaster_pid || echo '?'), port $PORT, socket $SOCKET_DIR)"
}

stop_server() {
  local pid
  pid=$(postmaster_pid) || return 1
  # Fast shutdown: open sessions are ended, nothing of a test database is worth waiting for.
  if ! as_server_user "$BIN_DIR/pg_ctl" stop --pgdata="$DATA_DIR" --mode=fast --wait --timeout=30 --silent; then
    log "fast shutdown did not finish in 30 s; immediate shutdown"
    as_server_user "$BIN_DIR/pg_ctl" stop --pgdata="$DATA_DIR" --mode=immediate --wait --timeout=30 --silent ||
      kill -KILL "$pid" 2>/dev/null || true
  fi
  log "PostgreSQL stopped (pid $pid)"
}

ensure_database() {
  psql_socket "$PORT" -d postgres -c "ALTER ROLE \"$DB_USER\" PASSWORD '$POSTGRES_PASSWORD'" >/dev/null
  if [[ -z $(psql_socket "$PORT" -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'") ]]; then
    psql_socket "$PORT" -d postgres -c "CREATE DATABASE \"$DB_NAME\"" >/dev/null
    log "created the database $DB_NAME"
  fi
}

write_env_file() {
  local tmp="$ENV_FILE.tmp"
  (
    umask 077
    printf 'PLATFORM_TEST_DATABASE_URL=%s\n' "$(database_url "$PORT")" >"$tmp"
  )
  mv -f "$tmp" "$ENV_FILE"
}

# --- commands ----------------------------------------------------------------------------------------
# One `up`/`stop`/`reset` at a time per state folder (several test runs may start at once).

cmd_up() {
  local started
  started=$(date +%s%N)
  ensure_packages
  ensure_server_user
  prepare_cluster_dir
  load_or_create_secrets
  initialise_cluster
  start_server
  ensure_database
  answers_over_tcp "$PORT" || die "PostgreSQL runs but does not answer over TCP at $HOST:$PORT (log $SERVER_LOG)"
  write_env_file
  # The password stays out of logs: it is in the env file (mode 600), which `env` prints.
  printf 'PostgreSQL %s is up in %s s\n  URL:      %s\n  socket:   %s\n  env file: %s\n' \
    "$("$BIN_DIR/postgres" --version | awk '{print $3}')" "$(elapsed_since "$started")" \
    "postgres://$DB_USER:***@$HOST:$PORT/$DB_NAME" "$SOCKET_DIR" "$ENV_FILE"
}

# The commands below never install anything: without server binaries nothing of ours can be running.
find_binaries() { BIN_DIR=$(server_bin_dir) || BIN_DIR=; }

cmd_stop() {
  find_binaries
  select_cluster_dir
  if [[ -n $BIN_DIR ]] && stop_server; then
    echo "PostgreSQL stopped"
  else
    echo "PostgreSQL was not running"
  fi
}

cmd_status() {
  find_binaries
  select_cluster_dir
  local pid port
  if [[ -n $BIN_DIR ]] && pid=$(postmaster_pid); then
    port=$(running_port)
    POSTGRES_PASSWORD=$(sed -n 's/^POSTGRES_PASSWORD=//p' "$SECRETS_FILE" 2>/dev/null || true)
    if answers_over_tcp "$port"; then
      echo "running postgres://$DB_USER@$HOST:$port/$DB_NAME (pid $pid, socket $SOCKET_DIR)"
      return 0
    fi
    echo "not ready postgres://$DB_USER@$HOST:$port/$DB_NAME: no answer to a query over TCP (pid $pid)"
    return 1
  fi
  echo "stopped (${STATE_DIR})"
  return 1
}

cmd_env() {
  [[ -s $ENV_FILE ]] || die "no PostgreSQL in $STATE_DIR yet: run \`$0 up\` first"
  sed -e 's/^/export /' "$ENV_FILE"
}

# Everything the state folder holds goes: the cluster (wherever it is), the password, the logs.
cmd_reset() {
  cmd_stop
  if [[ -e $STATE_DIR && ! -e $CLUSTER_LINK && ! -L $CLUSTER_LINK && ! -f $SECRETS_FILE ]]; then
    die "$STATE_DIR does not look like a PostgreSQL state folder; not deleting it"
  fi
  local removed=("$STATE_DIR")
  [[ -L $CLUSTER_LINK ]] && removed+=("$(readlink "$CLUSTER_LINK")")
  rm -rf "${removed[@]}"
  echo "PostgreSQL state deleted (${removed[*]})"
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
