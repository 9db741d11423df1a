# Sourced by scripts/test and scripts/sanitize: the services the integration
# suites need, one RocketMQ name server + broker, one more with authentication
# and one with TLS enforced (the bridge's security tests; it is also the
# suite's SYNC_FLUSH broker, the others flush asynchronously), and one PostgreSQL
# server, started for a whole run (mosquitto, and mochi-mqtt, the second MQTT
# broker, are started by the tests themselves).
#
#   start_services WORK   starts them under WORK/rocketmq, WORK/rocketmq-auth,
#                         WORK/rocketmq-tls and WORK/postgres and exports
#                         OUTPOST_ROCKETMQ_ENV, OUTPOST_ROCKETMQ_AUTH_ENV,
#                         OUTPOST_ROCKETMQ_TLS_ENV and OUTPOST_POSTGRES_ENV;
#                         builds mochi-mqtt and exports OUTPOST_MOCHI_BROKER
#                         (without Go >= 1.21 the tests on it report SKIP)
#   stop_services WORK    stops whatever start_services started there
# Both expect the repository root as the working directory.

start_services() {
  local work=$1
  echo "== starting RocketMQ for the integration suites"
  scripts/rocketmq.sh start "$work/rocketmq"
  export OUTPOST_ROCKETMQ_ENV="$work/rocketmq/env"
  echo "== starting RocketMQ with authentication, and one with TLS enforced"
  ROCKETMQ_AUTH=1 scripts/rocketmq.sh start "$work/rocketmq-auth"
  export OUTPOST_ROCKETMQ_AUTH_ENV="$work/rocketmq-auth/env"
  ROCKETMQ_TLS=1 ROCKETMQ_FLUSH_DISK_TYPE=SYNC_FLUSH scripts/rocketmq.sh start "$work/rocketmq-tls"
  export OUTPOST_ROCKETMQ_TLS_ENV="$work/rocketmq-tls/env"
  echo "== starting PostgreSQL for the consumer's tests"
  chmod 755 "$work"  # the server runs as the postgres user when we are root
  scripts/postgres.sh start "$work/postgres"
  export OUTPOST_POSTGRES_ENV="$work/postgres/env"
  echo "== building mochi-mqtt, the second MQTT broker of the bridge tests"
  local mochi
  if mochi=$(scripts/mqtt-broker.sh path); then
    export OUTPOST_MOCHI_BROKER="$mochi"
  else
    echo "warning: no mochi-mqtt broker; the bridge tests on it will be skipped" >&2
  fi
}

stop_services() {
  local work=$1
  local rocketmq
  for rocketmq in rocketmq rocketmq-auth rocketmq-tls; do
    if [ -f "$work/$rocketmq/env" ]; then scripts/rocketmq.sh stop "$work/$rocketmq" >/dev/null 2>&1 || true; fi
  done
  if [ -f "$work/postgres/env" ]; then scripts/postgres.sh stop "$work/postgres" >/dev/null 2>&1 || true; fi
}
