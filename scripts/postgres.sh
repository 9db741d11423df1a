#!/usr/bin/env bash
# A real PostgreSQL server (Debian's postgresql package) on loopback, for the
# consumer's tests, the demo and the consumer bench. Runs as a non-root user
# (PostgreSQL refuses root): the invoking user, or "postgres" when invoked as root.
#
#   scripts/postgres.sh start DIR    initdb (first time) and start a server whose data,
#                                    socket and log live under DIR; returns once it
#                                    accepts connections; creates database "outpost"
#   scripts/postgres.sh stop DIR     fast shutdown (waits for it)
#   scripts/postgres.sh psql DIR ARGS...   psql connected to that server's "outpost"
#
# `start` writes DIR/env (sourceable, one KEY=VALUE per line):
#   PG_PORT=...  PG_USER=...  PG_DATABASE=outpost
#   PG_JDBC_URL=jdbc:postgresql://127.0.0.1:PORT/outpost
#   PG_DIR=DIR
# Tests read OUTPOST_POSTGRES_ENV=DIR/env. Authentication is "trust" for
# 127.0.0.1 only: a test server, never a production configuration.
#
# Knobs (environment): POSTGRES_PORT (a fixed port instead of a free one),
# POSTGRES_BIN (directory of initdb/pg_ctl; default: Debian's newest).
set -euo pipefail

die() {
  echo "postgres.sh: $*" >&2
  exit 1
}

usage() {
  sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

bin_dir() {
  if [[ -n "${POSTGRES_BIN:-}" ]]; then
    echo "$POSTGRES_BIN"
    return
  fi
  local newest
  newest=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [[ -n "$newest" && -x "$newest/initdb" ]] ||
    die "PostgreSQL server not found (on Debian: apt-get install -y postgresql, or run scripts/setup)"
  echo "$newest"
}

# Runs a command as the server's user.
as_owner() {
  if [[ "$(id -u)" == 0 ]]; then
    runuser -u "$owner" -- "$@"
  else
    "$@"
  fi
}

pick_owner() {
  if [[ "$(id -u)" == 0 ]]; then
    id postgres >/dev/null 2>&1 || die "running as root needs the 'postgres' user (created by the postgresql package)"
    owner=postgres
  else
    owner=$(id -un)
  fi
}

port_is_free() {
  [[ -z "$(ss -Htln "( sport = :$1 )" 2>/dev/null)" ]]
}

pick_port() {
  local tries port
  for ((tries = 0; tries < 100; tries++)); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    if port_is_free "$port"; then
      echo "$port"
      return 0
    fi
  done
  die "no free loopback port found after 100 tries"
}

abs_dir() {
  [[ -n "${1:-}" ]] || usage
  mkdir -p "$1"
  (cd "$1" && pwd)
}

cmd_start() {
  local dir bin port
  dir=$(abs_dir "${1:-}")
  bin=$(bin_dir)
  pick_owner
  if [[ -f "$dir/env" ]] && as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
    die "PostgreSQL already runs in $dir (stop it first: $0 stop $dir)"
  fi
  command -v ss >/dev/null 2>&1 || die "ss not found (on Debian: apt-get install -y iproute2)"
  # The server's user must reach DIR: every parent must be searchable by it.
  [[ "$(id -u)" == 0 ]] && chown "$owner" "$dir"
  as_owner test -w "$dir" || die "$owner cannot write $dir (choose a directory it can reach, e.g. under /tmp)"
  if [[ ! -f "$dir/data/PG_VERSION" ]]; then
    as_owner "$bin/initdb" -D "$dir/data" -U "$owner" -A trust --no-sync -E UTF8 --locale=C.UTF-8 \
      >"$dir/initdb.log" 2>&1 || { tail -20 "$dir/initdb.log" >&2; die "initdb failed (log: $dir/initdb.log)"; }
  fi
  port=${POSTGRES_PORT:-$(pick_port)}
  port_is_free "$port" || die "port $port is busy"
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=on" \
    start >/dev/null || { tail -20 "$dir/server.log" >&2; die "the server did not start (log: $dir/server.log)"; }
  as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U "$owner" -d postgres -qAtc \
    "SELECT 1 FROM pg_database WHERE datname = 'outpost'" | grep -q 1 ||
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U "$owner" outpost
  cat >"$dir/env.tmp" <<ENV
PG_PORT=$port
PG_USER=$owner
PG_DATABASE=outpost
PG_JDBC_URL=jdbc:postgresql://127.0.0.1:$port/outpost
PG_DIR=$dir
ENV
  mv "$dir/env.tmp" "$dir/env"
  echo "postgres.sh: PostgreSQL on 127.0.0.1:$port (user $owner, database outpost); env in $dir/env"
}

cmd_stop() {
  local dir bin
  dir=$(abs_dir "${1:-}")
  [[ -f "$dir/data/PG_VERSION" ]] || return 0
  bin=$(bin_dir)
  pick_owner
  as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1 || return 0
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null
}

cmd_psql() {
  local dir
  dir=$(abs_dir "${1:-}")
  shift
  [[ -f "$dir/env" ]] || die "$dir/env not found: was '$0 start $dir' run?"
  # shellcheck disable=SC1091
  source "$dir/env"
  "$(bin_dir)/psql" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d "$PG_DATABASE" "$@"
}

case "${1:-}" in
  start) cmd_start "${2:-}" ;;
  stop) cmd_stop "${2:-}" ;;
  psql) shift && cmd_psql "$@" ;;
  *) usage ;;
esac
