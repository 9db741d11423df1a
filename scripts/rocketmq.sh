#!/usr/bin/env bash
# A real Apache RocketMQ (one name server + one broker) on loopback, for the
# integration tests and the demo. The jars come from Maven Central through
# scripts/rocketmq/pom.xml; nothing is installed outside this repository.
#
#   scripts/rocketmq.sh fetch              resolve the jars into scripts/.rocketmq/
#                                          (idempotent; prints nothing once cached)
#   scripts/rocketmq.sh start DIR          fetch, then start name server + broker with
#                                          their config, stores and logs under DIR; returns
#                                          once both printed their "boot success" line
#   scripts/rocketmq.sh stop DIR           SIGTERM both, wait, SIGKILL after a grace period
#   scripts/rocketmq.sh stop-broker DIR [a|b]   stop only that broker (fault tests;
#                                          default a, the only one unless ROCKETMQ_BROKERS=2)
#   scripts/rocketmq.sh kill-broker DIR [a|b]   SIGKILL only that broker, wait until it is gone
#   scripts/rocketmq.sh start-broker DIR [a|b]  start that broker again on the same port
#   scripts/rocketmq.sh admin DIR ARGS...  run mqadmin against that name server, e.g.
#                                          admin DIR queryMsgByKey -t TOPIC -k KEY
#
# `start` writes DIR/env (sourceable shell, one KEY=VALUE per line):
#   NAMESRV_ADDR=127.0.0.1:PORT   name server, for route lookups
#   BROKER_ADDR=127.0.0.1:PORT    broker (it also listens on PORT-2 and PORT+1)
#   NAMESRV_PID=...  BROKER_PID=...
#   ROCKETMQ_DIR=DIR
#   ROCKETMQ_SCRIPT=/path/to/this/rocketmq.sh  (tools that run mqadmin find it here)
#   ROCKETMQ_FLUSH_DISK_TYPE=ASYNC_FLUSH|SYNC_FLUSH  the broker's flushDiskType
#                                 (start-broker keeps it)
#
# Two broker groups (ROCKETMQ_BROKERS=2, read by `start`, remembered in
# DIR/env): a second master, brokerName outpost-broker-b, in the same cluster
# (OutpostCluster) and under the same name server, with its config, store and
# logs under DIR/b; every JVM then runs with half the heap. env gains
#   ROCKETMQ_BROKERS=2
#   BROKER_NAME=outpost-broker-a  BROKER_B_NAME=outpost-broker-b
#   BROKER_B_ADDR=127.0.0.1:PORT  BROKER_B_PID=...
# The script creates no topic on its own (ROCKETMQ_AUTH=1 aside, which
# creates its topics on the cluster, so on both): a test creates its topics
# on both brokers for the route to have write queues on both.
# Test runners export OUTPOST_ROCKETMQ_ENV=DIR/env; the RocketMQ integration
# tests skip (exit 77) when it is unset.
#
# Knobs (environment): ROCKETMQ_START_TIMEOUT (seconds, default 180),
# ROCKETMQ_STOP_TIMEOUT (seconds, default 30), ROCKETMQ_NAMESRV_PORT and
# ROCKETMQ_BROKER_PORT (fixed ports instead of free ones), JAVA (java binary),
# ROCKETMQ_FLUSH_DISK_TYPE (ASYNC_FLUSH, the tests' default, or SYNC_FLUSH as
# production runs; bench/bridge_bench starts its own with SYNC_FLUSH),
# ROCKETMQ_BROKER_IP (the address the broker registers for clients, default
# 127.0.0.1; it still binds 127.0.0.1: the bridge bench advertises 127.0.0.2
# and relays it through its delaying proxy).
#
# Secured instances (read by `start`, remembered in DIR/env for the rest):
#   ROCKETMQ_AUTH=1  the broker authenticates every request and authorizes
#                    it (ACL 2.0: authenticationEnabled, authorizationEnabled).
#                    A super user for mqadmin (DIR/home/conf/tools.yml); the
#                    shipped accounts of deploy/rocketmq/outpost-accounts.sh,
#                    made by that script as shipped: the bridge's (Pub on the
#                    mapped topics and the quarantine topic) and the
#                    consumer's (Sub on the alarm topic and its group), and
#                    the alarm and quarantine topics; and a test user outpost_nopub,
#                    denied Pub on every topic. env gains
#                    ROCKETMQ_ACCESS_KEY and ROCKETMQ_SECRET_FILE=DIR/bridge.secret
#                    (the bridge's), ROCKETMQ_ALARM_TOPIC and
#                    ROCKETMQ_QUARANTINE_TOPIC (the topics it may write),
#                    ROCKETMQ_CONSUMER_ACCESS_KEY,
#                    ROCKETMQ_CONSUMER_SECRET_FILE=DIR/consumer.secret and
#                    ROCKETMQ_CONSUMER_GROUP (the consumer's),
#                    ROCKETMQ_NOPUB_ACCESS_KEY=outpost_nopub,
#                    ROCKETMQ_NOPUB_SECRET_FILE=DIR/nopub.secret, and the super
#                    user's ROCKETMQ_ADMIN_ACCESS_KEY=outpost_admin and
#                    ROCKETMQ_ADMIN_SECRET_FILE=DIR/admin.secret (mode 600:
#                    tests create their topics with it).
#   ROCKETMQ_TLS=1   name server and broker accept TLS only
#                    (tls.server.mode=enforcing) with a certificate for
#                    127.0.0.1 from a CA made here with openssl; env gains
#                    ROCKETMQ_TLS_CA=DIR/tls/ca.crt.
#
# The name server and the broker's two remoting ports bind 127.0.0.1. The
# broker's HA port (PORT+1) binds the wildcard address: RocketMQ 5.3 has no
# setting for its address. Nothing ever connects to it (no replicas).
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pom="$script_dir/rocketmq/pom.xml"
cache_dir="$script_dir/.rocketmq"
java_bin=${JAVA:-java}
start_timeout=${ROCKETMQ_START_TIMEOUT:-180}
stop_timeout=${ROCKETMQ_STOP_TIMEOUT:-30}
jvm_memory=(-Xms256m -Xmx512m -XX:MaxDirectMemorySize=512m)
# Broker groups: 1, or 2 (ROCKETMQ_BROKERS=2); `start` reads it, the other
# commands take it from DIR/env.
brokers=${ROCKETMQ_BROKERS:-1}

die() {
  echo "rocketmq.sh: $*" >&2
  exit 1
}

usage() {
  sed -n '2,78p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

rocketmq_version() {
  sed -n 's|.*<rocketmq.version>\(.*\)</rocketmq.version>.*|\1|p' "$pom"
}

lib_dir() {
  echo "$cache_dir/lib-$(rocketmq_version)"
}

require_java() {
  command -v "$java_bin" >/dev/null 2>&1 ||
    die "java not found (need a JRE >= 11; on Debian: apt-get install -y openjdk-17-jre-headless)"
}

# Resolves the jars once; a stamp holding the pom's checksum marks a complete copy,
# so an interrupted download is redone rather than trusted.
cmd_fetch() {
  local lib stamp sum
  lib=$(lib_dir)
  stamp="$lib/.complete"
  sum=$(sha256sum "$pom" | cut -d' ' -f1)
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$sum" ]]; then
    return 0
  fi
  command -v mvn >/dev/null 2>&1 ||
    die "mvn not found (on Debian: apt-get install -y maven openjdk-17-jdk-headless)"
  require_java
  rm -rf "$lib.partial"
  mkdir -p "$cache_dir"
  local log="$cache_dir/fetch.log"
  echo "rocketmq.sh: resolving RocketMQ $(rocketmq_version) from Maven Central (first time: a minute or two)"
  if ! mvn -q -B -f "$pom" dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$lib.partial" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "mvn could not resolve RocketMQ $(rocketmq_version) from Maven Central (full log: $log)"
  fi
  ls "$lib.partial"/rocketmq-broker-*.jar >/dev/null 2>&1 ||
    die "mvn finished but rocketmq-broker is missing from $lib.partial"
  rm -rf "$lib"
  mv "$lib.partial" "$lib"
  echo "$sum" >"$stamp"
  echo "rocketmq.sh: RocketMQ $(rocketmq_version) jars ready in $lib"
}

port_is_free() {
  local port=$1
  ((port > 1024 && port < 65536)) || return 1
  # Listeners only: TIME_WAIT leftovers of a stopped broker do not block its
  # restart (RocketMQ binds with SO_REUSEADDR).
  [[ -z "$(ss -Htln "( sport = :$port )" 2>/dev/null)" ]]
}

# Prints a broker port P such that P-2, P and P+1 are free (the broker binds all three).
broker_port_triple_free() {
  port_is_free $(($1 - 2)) && port_is_free "$1" && port_is_free $(($1 + 1))
}

pick_port() {
  local check=$1 tries=0 port
  while ((tries < 100)); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    if "$check" "$port"; then
      echo "$port"
      return 0
    fi
    tries=$((tries + 1))
  done
  die "no free loopback port found after 100 tries"
}

# JVM flags for TLS (ROCKETMQ_TLS=1): servers enforce TLS with DIR/tls's
# certificate; the JVM's own clients (broker -> name server, mqadmin) speak
# TLS without checking it (tls.test.mode.enable=true trusts anything). The
# config file property points nowhere so /etc/rocketmq/tls.properties of the
# machine cannot change the setup.
tls_jvm_flags() {
  local dir=$1 role=$2
  [[ "${ROCKETMQ_TLS:-0}" == 1 ]] || return 0
  echo "-Dtls.config.file=$dir/tls/none.properties -Dtls.enable=true"
  if [[ "$role" == server ]]; then
    echo "-Dtls.server.mode=enforcing -Dtls.test.mode.enable=false" \
      "-Dtls.server.certPath=$dir/tls/server.crt -Dtls.server.keyPath=$dir/tls/server.key"
  else
    echo "-Dtls.test.mode.enable=true"
  fi
}

# A CA and a server certificate for 127.0.0.1 (EC P-256, PKCS#8 keys as
# Netty wants them).
make_tls_files() {
  local dir=$1/tls
  command -v openssl >/dev/null 2>&1 || die "openssl not found (on Debian: apt-get install -y openssl)"
  mkdir -p "$dir"
  (
    cd "$dir"
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key
    openssl req -x509 -new -key ca.key -out ca.crt -days 30 -subj "/CN=outpost-test-rocketmq-ca" \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out server.key
    openssl req -new -key server.key -out server.csr -subj "/CN=127.0.0.1"
    printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt \
      -days 30 -extfile server.ext
  ) >"$dir/openssl.log" 2>&1 || die "openssl could not make the TLS files (see $dir/openssl.log)"
}

random_secret() {
  head -c 24 /dev/urandom | base64 | tr -d '/+=\n'
}

# Starts one JVM in its own session so it outlives the calling shell; prints its pid.
# HOME_DIR is its user.home and ROCKETMQ_HOME (its logs go there): DIR/home, or
# DIR/b/home for the second broker.
launch() {
  local dir=$1 home=$2 out=$3 main=$4
  shift 4
  : >"$out"
  local tls_flags
  # shellcheck disable=SC2207
  tls_flags=($(tls_jvm_flags "$dir" server))
  (
    cd "$dir"
    export ROCKETMQ_HOME="$home"
    exec setsid "$java_bin" "${jvm_memory[@]}" -XX:-OmitStackTraceInFastThrow \
      -Duser.home="$home" -Drocketmq.home.dir="$home" "${tls_flags[@]}" \
      -cp "$(lib_dir)/*" "$main" "$@" >"$out" 2>&1 </dev/null
  ) &
  echo $!
}

# Waits for `pattern` in `out` while `pid` lives; on failure prints the log tail and stops pid.
wait_ready() {
  local what=$1 pid=$2 out=$3 pattern=$4 log=$5
  local deadline=$((SECONDS + start_timeout))
  while ((SECONDS < deadline)); do
    if grep -q "$pattern" "$out" 2>/dev/null; then
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "---- last lines of $out" >&2
      tail -n 40 "$out" >&2
      [[ -f "$log" ]] && { echo "---- last lines of $log" >&2; tail -n 20 "$log" >&2; }
      die "$what exited before it was ready (see $out)"
    fi
    sleep 0.5
  done
  echo "---- last lines of $out" >&2
  tail -n 40 "$out" >&2
  [[ -f "$log" ]] && { echo "---- last lines of $log" >&2; tail -n 20 "$log" >&2; }
  kill -KILL "$pid" 2>/dev/null || true
  die "$what was not ready within ${start_timeout}s (ROCKETMQ_START_TIMEOUT); killed it"
}

# Writes BROKER_DIR/broker.conf for broker group NAME; secrets come from DIR.
write_broker_conf() {
  local dir=$1 broker_dir=$2 name=$3 port=$4 namesrv=$5
  cat >"$broker_dir/broker.conf" <<EOF
brokerClusterName=OutpostCluster
brokerName=$name
brokerId=0
brokerRole=ASYNC_MASTER
flushDiskType=${ROCKETMQ_FLUSH_DISK_TYPE:-ASYNC_FLUSH}
bindAddress=127.0.0.1
listenPort=$port
brokerIP1=${ROCKETMQ_BROKER_IP:-127.0.0.1}
namesrvAddr=$namesrv
autoCreateTopicEnable=true
storePathRootDir=$broker_dir/store
storePathCommitLog=$broker_dir/store/commitlog
mappedFileSizeCommitLog=104857600
maxIndexNum=1000
maxHashSlotNum=4000
timerWheelEnable=false
fileReservedTime=1
EOF
  if [[ "${ROCKETMQ_AUTH:-0}" == 1 ]]; then
    local admin_secret
    admin_secret=$(cat "$dir/admin.secret")
    cat >>"$broker_dir/broker.conf" <<EOF
authenticationEnabled=true
authenticationProvider=org.apache.rocketmq.auth.authentication.provider.DefaultAuthenticationProvider
authenticationMetadataProvider=org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider
initAuthenticationUser={"username":"outpost_admin","password":"$admin_secret"}
innerClientAuthenticationCredentials={"accessKey":"outpost_admin","secretKey":"$admin_secret"}
authorizationEnabled=true
authorizationProvider=org.apache.rocketmq.auth.authorization.provider.DefaultAuthorizationProvider
authorizationMetadataProvider=org.apache.rocketmq.auth.authorization.provider.LocalAuthorizationMetadataProvider
EOF
  fi
}

# Only signals pids that are still the JVM started for this DIR (pids get reused).
is_ours() {
  local pid=$1 dir=$2
  [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] &&
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "-Duser.home=$dir/home"
}

stop_pid() {
  local what=$1 pid=$2 dir=$3
  is_ours "$pid" "$dir" || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  local deadline=$((SECONDS + stop_timeout))
  while ((SECONDS < deadline)) && is_ours "$pid" "$dir"; do
    sleep 0.2
  done
  if is_ours "$pid" "$dir"; then
    echo "rocketmq.sh: $what (pid $pid) ignored SIGTERM for ${stop_timeout}s; sending SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
    while is_ours "$pid" "$dir"; do sleep 0.1; done
  fi
}

abs_dir() {
  [[ -n "${1:-}" ]] || usage
  mkdir -p "$1"
  (cd "$1" && pwd)
}

load_env() {
  local dir=$1
  [[ -f "$dir/env" ]] || die "$dir/env not found: was '$0 start $dir' run?"
  # What a one-broker env leaves out must not come from the caller's environment.
  unset ROCKETMQ_BROKERS BROKER_B_ADDR BROKER_B_PID
  # shellcheck disable=SC1091
  source "$dir/env"
  brokers=${ROCKETMQ_BROKERS:-1}
}

write_env() {
  local dir=$1
  cat >"$dir/env.tmp" <<EOF
NAMESRV_ADDR=127.0.0.1:$namesrv_port
BROKER_ADDR=127.0.0.1:$broker_port
NAMESRV_PID=$namesrv_pid
BROKER_PID=$broker_pid
ROCKETMQ_DIR=$dir
ROCKETMQ_SCRIPT=$script_dir/rocketmq.sh
ROCKETMQ_AUTH=${ROCKETMQ_AUTH:-0}
ROCKETMQ_TLS=${ROCKETMQ_TLS:-0}
ROCKETMQ_FLUSH_DISK_TYPE=${ROCKETMQ_FLUSH_DISK_TYPE:-ASYNC_FLUSH}
EOF
  if ((brokers == 2)); then
    printf 'ROCKETMQ_BROKERS=2\nBROKER_NAME=%s\nBROKER_B_NAME=%s\n' "$(broker_name a)" \
      "$(broker_name b)" >>"$dir/env.tmp"
    printf 'BROKER_B_ADDR=127.0.0.1:%s\nBROKER_B_PID=%s\n' "$broker_b_port" "$broker_b_pid" \
      >>"$dir/env.tmp"
  fi
  if [[ "${ROCKETMQ_AUTH:-0}" == 1 ]]; then
    local accounts
    accounts=$(shipped_account_names)
    (
      eval "$accounts"
      read -r -a topics <<<"$OUTPOST_BRIDGE_TOPICS"
      printf 'ROCKETMQ_ACCESS_KEY=%s\nROCKETMQ_SECRET_FILE=%s\n' "$OUTPOST_BRIDGE_USER" \
        "$dir/bridge.secret"
      printf 'ROCKETMQ_ALARM_TOPIC=%s\nROCKETMQ_QUARANTINE_TOPIC=%s\n' "${topics[0]}" \
        "$OUTPOST_QUARANTINE_TOPIC"
      printf 'ROCKETMQ_CONSUMER_ACCESS_KEY=%s\nROCKETMQ_CONSUMER_SECRET_FILE=%s\n' \
        "$OUTPOST_CONSUMER_USER" "$dir/consumer.secret"
      printf 'ROCKETMQ_CONSUMER_GROUP=%s\n' "$OUTPOST_CONSUMER_GROUP"
    ) >>"$dir/env.tmp"
    printf 'ROCKETMQ_NOPUB_ACCESS_KEY=outpost_nopub\nROCKETMQ_NOPUB_SECRET_FILE=%s\n' \
      "$dir/nopub.secret" >>"$dir/env.tmp"
    printf 'ROCKETMQ_ADMIN_ACCESS_KEY=outpost_admin\nROCKETMQ_ADMIN_SECRET_FILE=%s\n' \
      "$dir/admin.secret" >>"$dir/env.tmp"
  fi
  if [[ "${ROCKETMQ_TLS:-0}" == 1 ]]; then
    printf 'ROCKETMQ_TLS_CA=%s\n' "$dir/tls/ca.crt" >>"$dir/env.tmp"
  fi
  mv "$dir/env.tmp" "$dir/env"
}

# Which broker group a command names: a (the default) or b (ROCKETMQ_BROKERS=2).
check_which() {
  case "$1" in
    a) ;;
    b) ((brokers == 2)) || die "there is no broker b (start with ROCKETMQ_BROKERS=2)" ;;
    *) die "unknown broker '$1' (a or b)" ;;
  esac
}

broker_name() {
  echo "outpost-broker-$1"
}

# Where broker WHICH keeps its config, pid, output, store and home: DIR for
# a, DIR/b for b.
broker_dir_of() {
  local dir=$1 which=$2
  if [[ "$which" == a ]]; then echo "$dir"; else echo "$dir/b"; fi
}

# Starts broker WHICH on its port (broker_port or broker_b_port) and records
# its pid in its directory (and in broker_pid or broker_b_pid).
launch_broker_in() {
  local dir=$1 which=$2 broker_dir port pid
  broker_dir=$(broker_dir_of "$dir" "$which")
  if [[ "$which" == a ]]; then port=$broker_port; else port=$broker_b_port; fi
  mkdir -p "$broker_dir/home" "$broker_dir/store"
  broker_triple_or_die "$port"
  write_broker_conf "$dir" "$broker_dir" "$(broker_name "$which")" "$port" \
    "127.0.0.1:$namesrv_port"
  pid=$(launch "$dir" "$broker_dir/home" "$broker_dir/broker.out" \
    org.apache.rocketmq.broker.BrokerStartup -c "$broker_dir/broker.conf" \
    -n "127.0.0.1:$namesrv_port")
  echo "$pid" >"$broker_dir/broker.pid"
  if [[ "$which" == a ]]; then broker_pid=$pid; else broker_b_pid=$pid; fi
}

# Waits for broker WHICH's "boot success".
wait_broker_in() {
  local dir=$1 which=$2 broker_dir
  broker_dir=$(broker_dir_of "$dir" "$which")
  wait_ready "broker" "$(cat "$broker_dir/broker.pid")" "$broker_dir/broker.out" "boot success" \
    "$broker_dir/home/logs/rocketmqlogs/broker.log"
}

# Starts broker WHICH, records its pid in DIR/env and waits until it is ready.
start_broker_in() {
  local dir=$1 which=$2
  launch_broker_in "$dir" "$which"
  write_env "$dir"
  wait_broker_in "$dir" "$which"
}

# Starts every broker group at once (they boot side by side), then waits for each.
start_brokers_in() {
  local dir=$1
  launch_broker_in "$dir" a
  if ((brokers == 2)); then launch_broker_in "$dir" b; fi
  write_env "$dir"
  wait_broker_in "$dir" a
  if ((brokers == 2)); then wait_broker_in "$dir" b; fi
}

# SIGTERMs every broker group at once and waits for all.
stop_brokers_in() {
  local dir=$1 pid_a=$2 pid_b=$3
  if ((brokers == 2)); then
    stop_pid "broker b" "$pid_b" "$dir/b" &
  fi
  stop_pid "broker" "$pid_a" "$dir"
  wait
}

broker_triple_or_die() {
  local p=$1 q
  for q in $((p - 2)) "$p" $((p + 1)); do
    port_is_free "$q" || die "port $q is busy (the broker needs $((p - 2)), $p and $((p + 1)))"
  done
}

# Two broker groups share a small machine: half the heap each.
use_brokers_memory() {
  if ((brokers == 2)); then
    jvm_memory=(-Xms128m -Xmx256m -XX:MaxDirectMemorySize=256m)
  fi
}

cmd_start() {
  local dir want_auth=${ROCKETMQ_AUTH:-0} want_tls=${ROCKETMQ_TLS:-0} want_brokers=$brokers
  dir=$(abs_dir "${1:-}")
  [[ "$want_brokers" == 1 || "$want_brokers" == 2 ]] ||
    die "ROCKETMQ_BROKERS must be 1 or 2, not '$want_brokers'"
  if [[ -f "$dir/env" ]]; then
    load_env "$dir"
    if is_ours "${NAMESRV_PID:-}" "$dir" || is_ours "${BROKER_PID:-}" "$dir" ||
      is_ours "${BROKER_B_PID:-}" "$dir/b"; then
      die "RocketMQ already runs in $dir (stop it first: $0 stop $dir)"
    fi
    rm -f "$dir/env"
  fi
  ROCKETMQ_AUTH=$want_auth
  ROCKETMQ_TLS=$want_tls
  brokers=$want_brokers
  use_brokers_memory
  require_java
  cmd_fetch
  command -v ss >/dev/null 2>&1 || die "ss not found (on Debian: apt-get install -y iproute2)"
  mkdir -p "$dir/home" "$dir/store"
  if [[ "${ROCKETMQ_TLS:-0}" == 1 ]]; then
    make_tls_files "$dir"
  fi
  if [[ "${ROCKETMQ_AUTH:-0}" == 1 ]]; then
    # The super user mqadmin signs with, and the client user's secret.
    (umask 077 && random_secret >"$dir/admin.secret" && random_secret >"$dir/bridge.secret" &&
      random_secret >"$dir/nopub.secret" && random_secret >"$dir/consumer.secret")
    mkdir -p "$dir/home/conf"
    (umask 077 && printf 'accessKey: outpost_admin\nsecretKey: %s\n' "$(cat "$dir/admin.secret")" \
      >"$dir/home/conf/tools.yml")
  fi

  namesrv_port=${ROCKETMQ_NAMESRV_PORT:-$(pick_port port_is_free)}
  port_is_free "$namesrv_port" || die "name server port $namesrv_port is busy"
  broker_port=${ROCKETMQ_BROKER_PORT:-}
  if [[ -z "$broker_port" ]]; then
    broker_port=$(pick_port broker_port_triple_free)
    while ((namesrv_port >= broker_port - 2 && namesrv_port <= broker_port + 1)); do
      broker_port=$(pick_port broker_port_triple_free)
    done
  fi
  broker_b_port=""
  broker_b_pid=""
  if ((brokers == 2)); then
    # Its three ports clear of the name server's and of broker a's.
    broker_b_port=$(pick_port broker_port_triple_free)
    while ((namesrv_port >= broker_b_port - 2 && namesrv_port <= broker_b_port + 1)) ||
      ((broker_b_port - 2 <= broker_port + 1 && broker_port - 2 <= broker_b_port + 1)); do
      broker_b_port=$(pick_port broker_port_triple_free)
    done
  fi

  printf 'listenPort=%s\nbindAddress=127.0.0.1\n' "$namesrv_port" >"$dir/namesrv.conf"
  namesrv_pid=$(launch "$dir" "$dir/home" "$dir/namesrv.out" \
    org.apache.rocketmq.namesrv.NamesrvStartup \
    -c "$dir/namesrv.conf")
  broker_pid=""
  write_env "$dir"
  wait_ready "name server" "$namesrv_pid" "$dir/namesrv.out" "The Name Server boot success" \
    "$dir/home/logs/rocketmqlogs/namesrv.log"

  if ! (start_brokers_in "$dir"); then
    stop_brokers_in "$dir" "$(cat "$dir/broker.pid" 2>/dev/null)" \
      "$(cat "$dir/b/broker.pid" 2>/dev/null)"
    stop_pid "name server" "$namesrv_pid" "$dir"
    exit 1
  fi
  broker_pid=$(cat "$dir/broker.pid")
  if ((brokers == 2)); then broker_b_pid=$(cat "$dir/b/broker.pid"); fi
  write_env "$dir"
  if [[ "${ROCKETMQ_AUTH:-0}" == 1 ]]; then
    create_shipped_accounts "$dir"
    create_client_user "$dir" outpost_nopub "$dir/nopub.secret" Deny
  fi
  if ((brokers == 2)); then
    echo "rocketmq.sh: name server 127.0.0.1:$namesrv_port, brokers a 127.0.0.1:$broker_port" \
      "and b 127.0.0.1:$broker_b_port; env in $dir/env"
  else
    echo "rocketmq.sh: name server 127.0.0.1:$namesrv_port, broker 127.0.0.1:$broker_port; env in $dir/env"
  fi
}

accounts_script="$script_dir/../deploy/rocketmq/outpost-accounts.sh"

# The names deploy/rocketmq/outpost-accounts.sh uses (sourceable).
shipped_account_names() {
  ROCKETMQ_CLUSTER=OutpostCluster "$accounts_script" names
}

# Creates the accounts with the shipped script as it is, signing as the
# super user, then the alarm and quarantine topics the tests use. The broker stores
# users and ACLs in DIR/store/config, so they survive a broker restart.
create_shipped_accounts() {
  local dir=$1 topic out
  eval "$(shipped_account_names)"
  MQADMIN="$script_dir/rocketmq.sh admin $dir" ROCKETMQ_CLUSTER=OutpostCluster \
    "$accounts_script" create "$dir/bridge.secret" "$dir/consumer.secret" ||
    die "deploy/rocketmq/outpost-accounts.sh could not create the accounts"
  for topic in "$OUTPOST_CONSUMER_TOPIC" "$OUTPOST_QUARANTINE_TOPIC"; do
    out=$(cmd_admin "$dir" updateTopic -c OutpostCluster -t "$topic" -r 4 -w 4 2>&1) ||
      { echo "$out" >&2; die "mqadmin updateTopic $topic failed"; }
  done
}

# Creates a test user with mqadmin and its ACL: DECISION (Allow or Deny)
# for Pub on every topic.
create_client_user() {
  local dir=$1 user=$2 secret_file=$3 decision=$4 out tries=0
  while ((tries < 10)); do
    out=$(cmd_admin "$dir" createUser -c OutpostCluster -u "$user" \
      -p "$(cat "$secret_file")" -t Normal 2>&1) || true
    grep -q "create user to .* success" <<<"$out" && break
    if cmd_admin "$dir" getUser -c OutpostCluster -u "$user" 2>/dev/null | grep -q "$user"; then
      break
    fi
    tries=$((tries + 1))
    sleep 1
  done
  ((tries < 10)) || { echo "$out" >&2; die "mqadmin createUser $user failed"; }
  out=$(cmd_admin "$dir" createAcl -c OutpostCluster -s "User:$user" -r 'Topic:*' -a Pub \
    -d "$decision" 2>&1) || { echo "$out" >&2; die "mqadmin createAcl for $user failed"; }
}

# The pid DIR/env records for broker WHICH.
broker_pid_of() {
  if [[ "$1" == a ]]; then echo "${BROKER_PID:-}"; else echo "${BROKER_B_PID:-}"; fi
}

cmd_start_broker() {
  local dir which=${2:-a} pid
  dir=$(abs_dir "${1:-}")
  load_env "$dir"
  check_which "$which"
  use_brokers_memory
  pid=$(broker_pid_of "$which")
  if [[ "$which" == a ]]; then
    is_ours "$pid" "$dir" && die "the broker already runs in $dir (pid $pid)"
  else
    is_ours "$pid" "$dir/b" && die "broker b already runs in $dir (pid $pid)"
  fi
  namesrv_port=${NAMESRV_ADDR##*:}
  broker_port=${BROKER_ADDR##*:}
  namesrv_pid=$NAMESRV_PID
  broker_pid=${BROKER_PID:-}
  broker_b_port=${BROKER_B_ADDR:-}
  broker_b_port=${broker_b_port##*:}
  broker_b_pid=${BROKER_B_PID:-}
  start_broker_in "$dir" "$which"
  if [[ "$which" == a ]]; then
    echo "rocketmq.sh: broker 127.0.0.1:$broker_port started again (pid $broker_pid)"
  else
    echo "rocketmq.sh: broker b 127.0.0.1:$broker_b_port started again (pid $broker_b_pid)"
  fi
}

cmd_stop() {
  local dir
  dir=$(abs_dir "${1:-}")
  [[ -f "$dir/env" ]] || return 0
  load_env "$dir"
  stop_brokers_in "$dir" "${BROKER_PID:-}" "${BROKER_B_PID:-}"
  stop_pid "name server" "${NAMESRV_PID:-}" "$dir"
}

cmd_stop_broker() {
  local dir which=${2:-a}
  dir=$(abs_dir "${1:-}")
  load_env "$dir"
  check_which "$which"
  if [[ "$which" == a ]]; then
    stop_pid "broker" "${BROKER_PID:-}" "$dir"
  else
    stop_pid "broker b" "${BROKER_B_PID:-}" "$dir/b"
  fi
}

# SIGKILL: the broker gets no chance to deregister from the name server or
# to flush; what it stored is in its files (the page cache survives a
# process kill) and is read again when it starts.
cmd_kill_broker() {
  local dir which=${2:-a} pid home_dir
  dir=$(abs_dir "${1:-}")
  load_env "$dir"
  check_which "$which"
  pid=$(broker_pid_of "$which")
  home_dir=$(broker_dir_of "$dir" "$which")
  is_ours "$pid" "$home_dir" || return 0
  kill -KILL "$pid" 2>/dev/null || true
  while is_ours "$pid" "$home_dir"; do sleep 0.05; done
}

cmd_admin() {
  local dir
  dir=$(abs_dir "${1:-}")
  shift
  (($# > 0)) || die "admin needs a mqadmin sub-command, e.g. clusterList"
  load_env "$dir"
  require_java
  local sub=$1
  shift
  local tls_flags
  # shellcheck disable=SC2207
  tls_flags=($(tls_jvm_flags "$dir" client))
  ROCKETMQ_HOME="$dir/home" "$java_bin" -Xms64m -Xmx256m -Duser.home="$dir/home" "${tls_flags[@]}" \
    -Dlogback.statusListenerClass=org.apache.rocketmq.logging.ch.qos.logback.core.status.NopStatusListener \
    -cp "$(lib_dir)/*" org.apache.rocketmq.tools.command.MQAdminStartup \
    "$sub" -n "$NAMESRV_ADDR" "$@"
}

case "${1:-}" in
  fetch) cmd_fetch ;;
  start) cmd_start "${2:-}" ;;
  stop) cmd_stop "${2:-}" ;;
  start-broker) cmd_start_broker "${2:-}" "${3:-a}" ;;
  stop-broker) cmd_stop_broker "${2:-}" "${3:-a}" ;;
  kill-broker) cmd_kill_broker "${2:-}" "${3:-a}" ;;
  admin) shift && cmd_admin "$@" ;;
  *) usage ;;
esac
