#!/usr/bin/env bash
# The gateway VM next to this host, on the same workload: alarms raised
# through outpostd's socket by K connections (outpost-vm-guest workload),
# published to mosquitto on loopback (receipts off: no bridge answers in
# the VM, so SENT is final), SENT rows purged as they go. Prints
# one JSON document: the VM's figures (outpost-torture --mode vm-run; with
# --rounds N, the median of each figure over N boots, and every round), the
# host's, and their ratios.
#
#   bench/gateway_vm_bench.sh [--build DIR] [--vm DIR] [--alarms N] [--connections K]
#                             [--rate R] [--retention S|default] [--rounds N] [--no-host] [--no-anchor]
#                             [--mark-delay-ms MS] [--commit-wait-us US] [--mount-options OPTS]
#
#   --rate R        alarms per second over all connections, evenly spaced
#                   (default 0: as fast as outpostd answers). A gateway's
#                   pace is a few per second at most: each alarm then
#                   commits alone, the case that costs its card the most.
#   --retention S   outpostd's SENT retention in seconds (default 0: purged
#                   as they go), or "default" for outpostd's own
#   --rounds N      VM boots; figures are the medians (default 1)
#   --no-host       skip the host comparison
#   --no-anchor     skip the naive SQLite anchor (below)
#   --mark-delay-ms MS  outpostd's publisher.mark_delay_ms (default: its own)
#   --commit-wait-us US outpostd's database.commit_wait_us (default: its own)
#   --mount-options OPTS  the data disk's ext4 mount options, for outpostd and
#                   the anchor alike (default noatime,lazytime, what
#                   docs/operations/gateway.md recommends)
#
# The anchor, measured in the same run (vm.anchor, and the ratios
# vm.block_bytes_over_naive_*): a plain SQLite program writing as many alarm
# rows at the same pace, one durable transaction per row, with SQLite's
# rollback journal and with WAL, each in a VM boot of its own.
#
# The VM is QEMU's TCG emulating two Cortex-A72 cores on this host's CPU: an
# emulator, not a Raspberry Pi. Its rates say how our code runs under that
# emulation (slower than a Pi 4 in places, faster in others); its bytes are
# exact, taken from the block log (every byte the guest wrote, ext4 journal
# and metadata included, split into WAL, database, SQLite's wal-index (-shm)
# and the rest by the files' extents). block_bytes_per_alarm and
# flushes_per_alarm cover the whole boot: outpostd's start and stop, the
# mount and the unmount included; workload_flushes_per_alarm counts only
# the flushes between the first alarm and the last, and the
# workload_flushes_*_per_alarm figures split them by what the file system
# wrote before each (a commit's WAL blocks, a checkpoint's database blocks,
# ext4's journal or metadata alone). The host's bytes are what outpostd handed
# the kernel (/proc/PID/io write_bytes): file data only, no journal. Timing
# figures on a shared machine are noisy: compare ratios from one run.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
build=build vm=build-gateway-vm alarms=500 connections=4 rate=0 retention=0 rounds=1 host=1 anchor=1 mark_delay=() commit_wait=() mount=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --vm) vm=$2; shift 2 ;;
    --alarms) alarms=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --retention) retention=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --no-host) host=0; shift ;;
    --no-anchor) anchor=0; shift ;;
    --mark-delay-ms) mark_delay=(--mark-delay-ms "$2"); shift 2 ;;
    --commit-wait-us) commit_wait=(--commit-wait-us "$2"); shift 2 ;;
    --mount-options) mount=(--mount-options "$2"); shift 2 ;;
    -h|--help) sed -n '2,42p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

case "$rounds" in ''|*[!0-9]*|0) echo "gateway_vm_bench: --rounds needs a positive number" >&2; exit 2 ;; esac
vm_status=0
vm_rounds=()
for ((round = 1; round <= rounds; round++)); do
  round_status=0
  round_json=$("$torture" --mode vm-run --vm "$vm" --alarms-per-run "$alarms" \
    --workers "$connections" --alarm-rate "$rate" --sent-retention "$retention" \
    "${mark_delay[@]}" "${commit_wait[@]}" "${mount[@]}") ||
    round_status=$?
  case "$round_json" in
    "{"*) ;;
    *) echo "gateway_vm_bench: VM round $round failed (exit $round_status)" >&2; exit 1 ;;
  esac
  [ "$round_status" = 0 ] || vm_status=$round_status
  vm_rounds+=("$round_json")
done
median_of_rounds() {  # JSON documents on stdin -> one: the median of each number, and the rounds
  python3 -c '
import json, statistics, sys
text = sys.stdin.read()
decoder, rounds, at = json.JSONDecoder(), [], 0
while at < len(text):
    if text[at].isspace():
        at += 1
        continue
    value, at = decoder.raw_decode(text, at)
    rounds.append(value)
median = dict(rounds[0])
for key, value in rounds[0].items():
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        median[key] = statistics.median(r[key] for r in rounds)
median["problems"] = [p for r in rounds for p in r.get("problems", [])]
median["rounds"] = rounds
print(json.dumps(median))'
}
vm_json=$(printf '%s\n' "${vm_rounds[@]}" | median_of_rounds)

# The anchor, in boots of its own on the same emulated disk: a plain SQLite
# program writing as many alarm rows at the same pace, one durable
# transaction per row, with a rollback journal and with WAL (FULL).
modes=(rollback wal)
anchor_json=()
[ "$anchor" = 1 ] || modes=()
for mode in "${modes[@]}"; do
  # One boot each: a plain loop of single-row transactions writes the same
  # blocks every time, so more rounds would only add minutes.
  naive_json=$("$torture" --mode vm-run --vm "$vm" --naive "$mode" \
    --alarms-per-run "$alarms" --alarm-rate "$rate" "${mount[@]}") ||
    { echo "gateway_vm_bench: the naive $mode anchor failed" >&2; exit 1; }
  anchor_json+=("$(printf '%s\n' "$naive_json" | median_of_rounds)")
done
# JSON goes through stdin, one document a line: a round with many problems
# can be longer than one command-line argument may be.
[ "$anchor" = 1 ] && vm_json=$(printf '%s\n' "$vm_json" "${anchor_json[@]}" | python3 -c '
import json, sys
vm, rollback, wal = (json.loads(line) for line in sys.stdin if line.strip())
vm["anchor"] = {"naive_rollback": rollback, "naive_wal": wal}
def over(key, anchor):
    return vm[key] / anchor[key] if anchor.get(key) else None
vm["block_bytes_over_naive_rollback"] = over("block_bytes_per_alarm", rollback)
vm["block_bytes_over_naive_wal"] = over("block_bytes_per_alarm", wal)
vm["flushes_over_naive_rollback"] = over("flushes_per_alarm", rollback)
vm["flushes_over_naive_wal"] = over("flushes_per_alarm", wal)
print(json.dumps(vm))')

if [ "$host" = 0 ]; then
  printf '%s\n' "$vm_json" |
    python3 -c 'import json, sys; print(json.dumps({"vm": json.load(sys.stdin)}, indent=2))'
  [ "$vm_status" = 0 ] || { echo "gateway_vm_bench: the VM run had problems (see vm.problems)" >&2; exit 1; }
  exit 0
fi

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
retention_key="\"sent_retention_s\": $retention,"
[ "$retention" = default ] && retention_key=
cat > "$work/outpostd.json" <<CONFIG
{
  "gateway_id": "gw-host",
  "database": {"path": "$work/outbox.db", "quota_bytes": 16777216,
               $retention_key "purge_batch_rows": 16},
  "broker": {"uri": "tcp://127.0.0.1:$port", "client_id": "gw-host", "connect_timeout_ms": 5000},
  "publisher": {"window": 20, "purge_interval_ms": 200, "reconnect_initial_ms": 100,
                "reconnect_max_ms": 1000, "drain_timeout_ms": 10000, "receipts": false},
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
  --rate "$rate" \
  >/dev/null || { echo "gateway_vm_bench: host workload failed:" >&2; cat "$work/channel.txt" >&2; exit 1; }
host_bytes=$(bytes_written)

printf '%s\n' "$vm_json" > "$work/vm.json"
python3 - "$work/vm.json" "$work/channel.txt" "$host_bytes" "$alarms" "$connections" <<'PY'
import json, sys
vm = json.load(open(sys.argv[1]))
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
