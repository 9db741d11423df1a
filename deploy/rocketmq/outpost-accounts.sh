#!/usr/bin/env bash
# The RocketMQ accounts of Outpost, each with only the rights it needs, for a
# RocketMQ 5.x broker with ACL 2.0 on (authenticationEnabled and
# authorizationEnabled, DefaultAuthorizationProvider). Run it as an operator
# whose mqadmin signs as a super user (conf/tools.yml); the broker must be up.
#
#   outpost-accounts.sh create BRIDGE_SECRET_FILE CONSUMER_SECRET_FILE
#       creates both users (mqadmin createUser, type Normal) with the secrets
#       in those files, grants their rights (mqadmin createAcl), then reads
#       them back (getUser, getAcl) and fails unless the broker holds them
#   outpost-accounts.sh names
#       prints the names it uses, one KEY=VALUE a line (sourceable)
#
# The accounts and their rights (a Normal user may do nothing it is not
# granted: ACL 2.0 denies what no policy allows):
#   bridge    Pub on each topic of OUTPOST_BRIDGE_TOPICS and on
#             OUTPOST_QUARANTINE_TOPIC. Nothing else: it needs no Sub, no
#             group, no Create (topics are made by the operator). Route
#             lookups go to the name server; GET_BROKER_CONFIG, which the
#             bridge sends to judge the broker's durability, needs no grant
#             in RocketMQ 5.3 (any authenticated user may send it).
#   consumer  Sub on OUTPOST_CONSUMER_TOPIC and on its group
#             OUTPOST_CONSUMER_GROUP (the group's retry topic counts as the
#             group). No Pub anywhere.
#
# Environment (defaults: the names of the example configurations):
#   MQADMIN                   the mqadmin command, default "mqadmin" (it
#                             reads the name server from NAMESRV_ADDR)
#   ROCKETMQ_CLUSTER          the broker cluster, default DefaultCluster
#   OUTPOST_BRIDGE_USER       default outpost_bridge
#   OUTPOST_BRIDGE_TOPICS     the mapped topics, space separated, default
#                             "outpost_alarms outpost_events"
#   OUTPOST_QUARANTINE_TOPIC  default outpost_quarantine
#   OUTPOST_CONSUMER_USER     default outpost_consumer
#   OUTPOST_CONSUMER_TOPIC    default outpost_alarms
#   OUTPOST_CONSUMER_GROUP    default alarm-ledger
#
# mqadmin createUser takes the secret on its command line: run this on a
# host where other users cannot read process arguments.
set -euo pipefail

read -r -a mqadmin <<<"${MQADMIN:-mqadmin}"
cluster=${ROCKETMQ_CLUSTER:-DefaultCluster}
bridge_user=${OUTPOST_BRIDGE_USER:-outpost_bridge}
bridge_topics=${OUTPOST_BRIDGE_TOPICS:-outpost_alarms outpost_events}
quarantine_topic=${OUTPOST_QUARANTINE_TOPIC:-outpost_quarantine}
consumer_user=${OUTPOST_CONSUMER_USER:-outpost_consumer}
consumer_topic=${OUTPOST_CONSUMER_TOPIC:-outpost_alarms}
consumer_group=${OUTPOST_CONSUMER_GROUP:-alarm-ledger}

die() {
  echo "outpost-accounts.sh: $*" >&2
  exit 1
}

usage() {
  sed -n '2,40p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# "Topic:a,Topic:b" from "a b".
resources() {
  local kind=$1 joined="" name
  shift
  for name in "$@"; do
    joined+="${joined:+,}$kind:$name"
  done
  echo "$joined"
}

# Creates USER with the secret in FILE (or finds it made already); a broker
# that just booted may refuse for a few seconds, so it retries.
create_user() {
  local user=$1 file=$2 out tries=0
  [[ -r "$file" ]] || die "cannot read the secret file $file"
  while ((tries < 10)); do
    out=$("${mqadmin[@]}" createUser -c "$cluster" -u "$user" -p "$(cat "$file")" -t Normal 2>&1) || true
    grep -q "create user to .* success" <<<"$out" && return 0
    if "${mqadmin[@]}" getUser -c "$cluster" -u "$user" 2>/dev/null | grep -q "$user"; then
      return 0
    fi
    tries=$((tries + 1))
    sleep 1
  done
  echo "$out" >&2
  die "mqadmin createUser $user failed"
}

# Allows ACTIONS on RESOURCES to USER, then checks getAcl lists each resource.
grant() {
  local user=$1 resources=$2 actions=$3 out acl resource
  out=$("${mqadmin[@]}" createAcl -c "$cluster" -s "User:$user" -r "$resources" -a "$actions" \
    -d Allow 2>&1) || { echo "$out" >&2; die "mqadmin createAcl for $user failed"; }
  acl=$("${mqadmin[@]}" getAcl -c "$cluster" -s "User:$user" 2>&1) || true
  IFS=, read -r -a wanted <<<"$resources"
  for resource in "${wanted[@]}"; do
    grep -qF "$resource" <<<"$acl" || {
      echo "$out" >&2
      echo "$acl" >&2
      die "the broker holds no $actions on $resource for $user after createAcl"
    }
  done
}

cmd_create() {
  (($# == 2)) || usage
  local bridge_resources
  read -r -a topics <<<"$bridge_topics"
  ((${#topics[@]} > 0)) || die "OUTPOST_BRIDGE_TOPICS names no topic"
  bridge_resources=$(resources Topic "${topics[@]}" "$quarantine_topic")
  create_user "$bridge_user" "$1"
  grant "$bridge_user" "$bridge_resources" Pub
  create_user "$consumer_user" "$2"
  grant "$consumer_user" "Topic:$consumer_topic,Group:$consumer_group" Sub
}

cmd_names() {
  cat <<EOF
OUTPOST_BRIDGE_USER=$bridge_user
OUTPOST_BRIDGE_TOPICS="$bridge_topics"
OUTPOST_QUARANTINE_TOPIC=$quarantine_topic
OUTPOST_CONSUMER_USER=$consumer_user
OUTPOST_CONSUMER_TOPIC=$consumer_topic
OUTPOST_CONSUMER_GROUP=$consumer_group
EOF
}

case "${1:-}" in
  create) shift && cmd_create "$@" ;;
  names) cmd_names ;;
  *) usage ;;
esac
