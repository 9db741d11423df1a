#!/usr/bin/env bash
# The second MQTT v5 broker the bridge tests run against (mosquitto is the
# first): mochi-mqtt v2 (Go module github.com/mochi-mqtt/server/v2, from the
# Go module proxy), wrapped by scripts/mqtt-broker/main.go into one binary,
# outpost-mochi-broker, with a loopback listener and a log the tests read.
# Nothing is installed outside this repository (and Go's module cache).
#
#   scripts/mqtt-broker.sh build        build it into scripts/.mqtt-broker/ (idempotent;
#                                       prints nothing once built); needs Go >= 1.21
#   scripts/mqtt-broker.sh path         build if needed, print the binary's path
#   scripts/mqtt-broker.sh start DIR    build, start on a free loopback port with its log
#                                       in DIR/broker.log; returns once it is ready
#   scripts/mqtt-broker.sh stop DIR     SIGTERM it, wait, SIGKILL after 10 s
#
# `start` writes DIR/env: MQTT_URI=tcp://127.0.0.1:PORT, MQTT_BROKER_PID=...
# The bridge integration tests start their own instances (one per test, so a
# test can stop and restart it): scripts/test exports
# OUTPOST_MOCHI_BROKER=$(scripts/mqtt-broker.sh path), and the tests
# registered "on mochi-mqtt" skip when it is unset.
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir="$script_dir/mqtt-broker"
out_dir="$script_dir/.mqtt-broker"
binary="$out_dir/outpost-mochi-broker"

die() {
  echo "mqtt-broker.sh: $*" >&2
  exit 1
}

usage() {
  sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

go_bin() {
  local go
  for go in "${GO:-}" go /usr/local/go/bin/go /usr/lib/go-1.2*/bin/go /usr/lib/go-1.21/bin/go; do
    [[ -n "$go" ]] && command -v "$go" >/dev/null 2>&1 && { echo "$go"; return 0; }
  done
  die "go not found (need Go >= 1.21; on Debian 12: apt-get install -y -t bookworm-backports golang-1.21-go)"
}

# A stamp holding the sources' checksum marks a binary built from them.
cmd_build() {
  local stamp="$out_dir/.built" sum go
  sum=$(cat "$source_dir/main.go" "$source_dir/go.mod" "$source_dir/go.sum" | sha256sum | cut -d' ' -f1)
  if [[ -x "$binary" && -f "$stamp" && "$(cat "$stamp")" == "$sum" ]]; then
    return 0
  fi
  go=$(go_bin)
  mkdir -p "$out_dir"
  echo "mqtt-broker.sh: building mochi-mqtt from the Go module proxy (first time: a minute or two)" >&2
  if ! (cd "$source_dir" && GOFLAGS=-mod=readonly "$go" build -trimpath -o "$binary.partial" .) \
    >"$out_dir/build.log" 2>&1; then
    tail -n 30 "$out_dir/build.log" >&2
    die "go build failed (full log: $out_dir/build.log)"
  fi
  mv "$binary.partial" "$binary"
  echo "$sum" >"$stamp"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cmd_start() {
  local dir=$1 port pid deadline
  cmd_build
  mkdir -p "$dir"
  port=$(free_port)
  : >"$dir/broker.log"
  setsid "$binary" -listen "127.0.0.1:$port" >>"$dir/broker.log" 2>&1 </dev/null &
  pid=$!
  deadline=$((SECONDS + 30))
  until grep -q " running on " "$dir/broker.log"; do
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$dir/broker.log" >&2; die "broker exited at start"; }
    ((SECONDS < deadline)) || { kill -KILL "$pid"; die "broker not ready within 30 s"; }
    sleep 0.1
  done
  printf 'MQTT_URI=tcp://127.0.0.1:%s\nMQTT_BROKER_PID=%s\n' "$port" "$pid" >"$dir/env"
  echo "mqtt-broker.sh: mochi-mqtt on tcp://127.0.0.1:$port; env in $dir/env"
}

cmd_stop() {
  local dir=$1 pid deadline
  [[ -f "$dir/env" ]] || return 0
  pid=$(sed -n 's/^MQTT_BROKER_PID=//p' "$dir/env")
  # Only a pid that is still our broker (pids get reused).
  [[ -n "$pid" && "$(readlink "/proc/$pid/exe" 2>/dev/null)" == "$binary" ]] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  deadline=$((SECONDS + 10))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

case "${1:-}" in
  build) cmd_build ;;
  path) cmd_build && echo "$binary" ;;
  start) [[ $# -eq 2 ]] || usage; cmd_start "$2" ;;
  stop) [[ $# -eq 2 ]] || usage; cmd_stop "$2" ;;
  *) usage ;;
esac
