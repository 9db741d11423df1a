#!/usr/bin/env bash
# A mosquitto broker on loopback in the foreground, for manual runs and the
# demo. (The tests and the bench start their own broker per run through
# tests/support/mosquitto_fixture.h; they do not need this script.)
#
#   scripts/mosquitto.sh [options] DIR
#
# writes DIR/mosquitto.conf (and DIR/passwords, DIR/acl when asked), prints
# the broker URI, then runs `mosquitto -c DIR/mosquitto.conf` in the
# foreground with every log line on stderr. Stop it with Ctrl-C / SIGTERM.
# A loopback broker for trying things out: plain TCP, passwords, and client
# ids not bound to users. A deployment uses deploy/mosquitto (TLS, the
# outpost_identity plugin; docs/security.md).
#
# Options:
#   --port N           listen on 127.0.0.1:N (default: a free port)
#   --user NAME:PASS   add a gateway user (repeatable); turns anonymous
#                      access off and writes the shipped ACL's rules
#                      (deploy/mosquitto/outpost.acl): a gateway writes only
#                      its own alarm, event, telemetry and status topics and
#                      reads only its own receipts
#   --bridge NAME:PASS add a bridge user (repeatable): reads every alarm and
#                      event, writes receipts
#   --max-inflight N   max_inflight_messages = the Receive Maximum announced
#                      to v5 clients (default 20, mosquitto's own default)
#   --persistence      keep sessions across restarts (saved on SIGTERM)
#   --print-only       write the files and print the URI, do not start
set -euo pipefail

port=""
users=()
bridges=()
max_inflight=20
persistence=false
print_only=false
while [[ $# -gt 0 ]]; do
    case "$1" in
        --port) port="$2"; shift 2 ;;
        --user) users+=("$2"); shift 2 ;;
        --max-inflight) max_inflight="$2"; shift 2 ;;
        --persistence) persistence=true; shift ;;
        --print-only) print_only=true; shift ;;
        --bridge) users+=("$2"); bridges+=("${2%%:*}"); shift 2 ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        -*) echo "unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
[[ $# -eq 1 ]] || { echo "usage: $0 [options] DIR" >&2; exit 2; }
dir="$(mkdir -p "$1" && cd "$1" && pwd)"

mosquitto_bin="$(command -v mosquitto || echo /usr/sbin/mosquitto)"
[[ -x "$mosquitto_bin" ]] || { echo "mosquitto is not installed (apt-get install mosquitto)" >&2; exit 77; }

if [[ -z "$port" ]]; then
    # Ask the kernel for a free loopback port.
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
fi

conf="$dir/mosquitto.conf"
{
    echo "listener $port 127.0.0.1"
    echo "log_type all"
    echo "log_dest stderr"
    echo "max_inflight_messages $max_inflight"
    echo "max_queued_messages 100000"
    [[ $(id -u) -eq 0 ]] && echo "user root"
    if $persistence; then
        echo "persistence true"
        echo "persistence_location $dir/"
    else
        echo "persistence false"
    fi
} > "$conf"

if [[ ${#users[@]} -gt 0 ]]; then
    rm -f "$dir/passwords"
    create=(-c)
    for entry in "${users[@]}"; do
        mosquitto_passwd -b "${create[@]}" "$dir/passwords" "${entry%%:*}" "${entry#*:}"
        create=()
    done
    # The shipped ACL's gateway rules, then one block per bridge user.
    shipped_acl="$(dirname "$0")/../deploy/mosquitto/outpost.acl"
    {
        grep '^pattern ' "$shipped_acl"
        for bridge in "${bridges[@]}"; do
            printf '\nuser %s\ntopic read outpost/+/alarm/+\ntopic read outpost/+/event/+\ntopic write outpost/+/receipt\n' "$bridge"
        done
    } > "$dir/acl"
    {
        echo "allow_anonymous false"
        echo "password_file $dir/passwords"
        echo "acl_file $dir/acl"
    } >> "$conf"
else
    echo "allow_anonymous true" >> "$conf"
fi

echo "tcp://127.0.0.1:$port"
$print_only && exit 0
exec "$mosquitto_bin" -c "$conf"
