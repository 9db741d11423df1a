#!/usr/bin/env bash
# The gateway VM next to this host, on the same workload: alarms raised
# through outpostd's socket by K connections (outpost-vm-guest workload),
# published to mosquitto on loopback, SENT rows purged as they go. Prints
# one JSON document: the VM's figures (outpost-torture --mode vm-run), the
# host's, and their ratios.
#
#   bench/gateway_vm_bench.sh [--build DIR] [--vm DIR] [--alarms N] [--connections K]
#
# The VM is QEMU's TCG emulating two Cortex-A72 cores on this host's CPU: an
# emulator, not a Raspberry Pi. Its rates say how our code runs under that
# emulation (slower than a Pi 4 in places, faster in others); its bytes are
# exact, taken from the block log (every byte the guest wrote, ext4 journal
# and metadata included, split into WAL, database and the rest by the files'
# extents). The host's bytes are what outpostd handed the kernel
# (/proc/PID/io write_bytes): file data only, no journal. Timing figures on
# a shared machine are noisy: compare ratios from one run.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
build=build vm=build-gateway-vm alarms=500 connections=4
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --vm) vm=$2; shift 2 ;;
    --alarms) alarms=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gateway_vm_bench: unknown option '$1' (try --help)" >&2; exit 2 ;;
  esac
done
program() {  # the built executable named $1 under $build
  local path
  path=$(find "$build/src" "$build/proof" -type f -name "$1" -perm -u+x 2>/dev/null | head -1)
  [ -n "$path" ] || { echo "gateway_vm_bench: $1 not built in $build" >&2; exit 1; }
  echo "$path"
}
torture=$(program outpost-torture)
outpostd=$(program outpostd)
guest=$(program outpost-vm-guest)

vm_status=0
vm_json=$("$torture" --mode vm-run --vm "$vm" --alarms-per-run "$alarms" --workers "$connections") ||
  vm_status=$?
case "$vm_json" in
  "{"*) ;;
  *) echo "gateway_vm_bench: the VM run failed (exit $vm_status)" >&2; exit 1 ;;
esac

# The host: the same daemon configuration as the VM's (scripts/gateway-vm/init)
# on a directory of this host's disk.
work=$(mktemp -d "${TMPDIR:-/tmp}/outpost-vm-bench.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\nuser root\npersistence false\n' "$port" \
  > "$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" 2>"$work/mosquitto.log" &
pids+=($!)
cat > "$work/outpostd.json" <<CONFIG
{
  "gateway_id": "gw-host",
  "database": {"path": "$work/outbox.db", "quota_bytes": 16777216,
               "sent_retention_s": 0, "purge_batch_rows": 16},
  "broker": {"uri": "tcp://127.0.0.1:$port", "client_id": "gw-host", "connect_timeout_ms": 5000},
  "publisher": {"window": 20, "purge_interval_ms": 200, "reconnect_initial_ms": 100,
                "reconnect_max_ms": 1000, "drain_timeout_ms": 10000},
  "ingest": {"socket": "$work/outpostd.sock"},
  "logging": {"level": "warn"}
}
CONFIG
"$outpostd" --config "$work/outpostd.json" 2>"$work/outpostd.log" &
daemon=$!
pids+=("$daemon")
bytes_written() { awk '/^write_bytes/ {print $2}' "/proc/$daemon/io"; }
: > "$work/channel.txt"
"$guest" workload --channel "$work/channel.txt" --socket "$work/outpostd.sock" --device "" \
  --store "$work/outbox.db" --prefix host --alarms "$alarms" --connections "$connections" \
  >/dev/null || { echo "gateway_vm_bench: host workload failed:" >&2; cat "$work/channel.txt" >&2; exit 1; }
host_bytes=$(bytes_written)

python3 - "$vm_json" "$work/channel.txt" "$host_bytes" "$alarms" "$connections" <<'PY'
import json, sys
vm = json.loads(sys.argv[1])
figures = {}
for line in open(sys.argv[2]):
    parts = line.split()
    if len(parts) == 3 and parts[0] == "N":
        figures[parts[1]] = int(parts[2])
alarms = figures.get("acknowledged", 0)
def rate(ms):
    return alarms * 1000.0 / figures[ms] if figures.get(ms) else 0.0
host = {
    "machine": "this host, natively (outpostd and the same workload program)",
    "alarms": alarms,
    "connections": int(sys.argv[5]),
    "alarms_per_s_recorded": rate("record_ms"),
    "alarms_per_s_published": rate("publish_ms"),
    "outpostd_write_bytes_per_alarm": int(sys.argv[3]) / alarms if alarms else 0.0,
}
ratio = {
    "vm_over_host_recorded": vm["alarms_per_s_recorded"] / host["alarms_per_s_recorded"]
        if host["alarms_per_s_recorded"] else None,
    "vm_over_host_published": vm["alarms_per_s_published"] / host["alarms_per_s_published"]
        if host["alarms_per_s_published"] else None,
}
print(json.dumps({"vm": vm, "host": host, "ratio": ratio}, indent=2))
PY
[ "$vm_status" = 0 ] || { echo "gateway_vm_bench: the VM run had problems (see vm.problems)" >&2; exit 1; }
