#!/usr/bin/env bash
# Builds and runs outpost-consumer, the reference idempotent consumer (consumer,
# docs/CONSUMING.md). Maven resolves the jars from Maven Central once; everything it
# builds stays under scripts/.consumer/ (ignored), so later builds run offline.
#
#   scripts/consumer.sh build            compile and package (skipped when nothing changed);
#                                        prints nothing once built
#   scripts/consumer.sh test             run the Java unit tests (JUnit, Maven Surefire)
#   scripts/consumer.sh classpath        build if needed, print the java class path
#   scripts/consumer.sh run ARGS...      build if needed, then exec the consumer in this
#                                        process (same pid: a SIGKILL reaches the JVM)
#   scripts/consumer.sh bench ARGS...    build if needed, then exec the throughput bench
#                                        (bench/consumer_bench is the command to use)
#
# Knobs (environment): JAVA (java binary), CONSUMER_JVM_OPTS (default
# "-Xms64m -Xmx256m -XX:+UseSerialGC").
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/.." && pwd)
project="$repo/consumer"
cache_dir="$script_dir/.consumer"
java_bin=${JAVA:-java}
read -r -a jvm_opts <<<"${CONSUMER_JVM_OPTS:--Xms64m -Xmx256m -XX:+UseSerialGC}"

die() {
  echo "consumer.sh: $*" >&2
  exit 1
}

usage() {
  sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

require_tools() {
  command -v "$java_bin" >/dev/null 2>&1 ||
    die "java not found (on Debian: apt-get install -y default-jdk-headless, or run scripts/setup)"
  command -v mvn >/dev/null 2>&1 ||
    die "mvn not found (on Debian: apt-get install -y maven default-jdk-headless, or run scripts/setup)"
  command -v javac >/dev/null 2>&1 ||
    die "javac not found (on Debian: apt-get install -y default-jdk-headless, or run scripts/setup)"
}

# Everything the jar is made of: a change to any of these rebuilds it.
source_sum() {
  (
    cd "$repo"
    find consumer/pom.xml consumer/src/main schema/event.schema.json -type f -print0 |
      sort -z | xargs -0 sha256sum
  ) | sha256sum | cut -d' ' -f1
}

# Offline once the dependencies and plugins were resolved (stamp), online the first time.
mvn_run() {
  local log=$1
  shift
  local offline=()
  [[ -f "$cache_dir/.resolved" ]] && offline=(-o)
  if ! mvn -B -q "${offline[@]}" -f "$project/pom.xml" -Doutpost.build.dir="$cache_dir/target" "$@" \
    >"$log" 2>&1; then
    if ((${#offline[@]} > 0)) && grep -q "offline mode" "$log"; then
      rm -f "$cache_dir/.resolved"  # something new to fetch (e.g. the pom changed): go online once
      mvn_run "$log" "$@"
      return
    fi
    return 1
  fi
}

cmd_build() {
  require_tools
  mkdir -p "$cache_dir"
  exec 9>"$cache_dir/.lock"
  flock 9  # one build at a time; a waiting caller then finds it done
  local sum
  sum=$(source_sum)
  if [[ -f "$cache_dir/.built" && "$(cat "$cache_dir/.built")" == "$sum" && -d "$cache_dir/lib" ]]; then
    exec 9>&-
    return 0
  fi
  local log="$cache_dir/build.log"
  echo "consumer.sh: building the reference consumer with Maven (first time: a minute or two)"
  if ! mvn_run "$log" -DskipTests package dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$cache_dir/lib.partial"; then
    tail -n 40 "$log" >&2
    die "the consumer did not build (full log: $log)"
  fi
  rm -rf "$cache_dir/lib"
  mv "$cache_dir/lib.partial" "$cache_dir/lib"
  cp "$cache_dir/target/outpost-consumer-"*.jar "$cache_dir/lib/"
  touch "$cache_dir/.resolved"
  echo "$sum" >"$cache_dir/.built"
}

# Runs cmd_build under the lock and releases it: a consumer exec'd afterwards
# must not inherit (and hold for its whole life) the lock's descriptor.
build_locked() {
  cmd_build
  exec 9>&-
}

cmd_test() {
  require_tools
  build_locked
  exec 9>"$cache_dir/.lock"
  flock 9
  local log="$cache_dir/test.log"
  rm -rf "$cache_dir/target/surefire-reports"  # no stale verdicts
  if ! mvn_run "$log" test -Doutpost.repo="$repo"; then
    rm -f "$cache_dir/.resolved"  # surefire's own providers may be missing: retry online once
    if ! mvn_run "$log" test -Doutpost.repo="$repo"; then
      grep -E "Tests run|FAIL|ERROR" "$log" | head -40 >&2
      die "Java unit tests failed (full log: $log)"
    fi
  fi
  touch "$cache_dir/.resolved"
  cat "$cache_dir/target/surefire-reports/"*.txt | grep -E "^Tests run:" | sed 's/^/consumer.sh: /'
}

classpath() {
  echo "$cache_dir/lib/*"
}

case "${1:-}" in
  build) build_locked ;;
  test) cmd_test ;;
  classpath) build_locked && classpath ;;
  run)
    shift
    build_locked
    exec "$java_bin" "${jvm_opts[@]}" -cp "$(classpath)" org.outpost.consumer.Main "$@"
    ;;
  bench)
    shift
    build_locked
    exec "$java_bin" -Xms256m -Xmx512m -cp "$(classpath)" org.outpost.consumer.bench.ConsumerBench "$@"
    ;;
  -h | --help) usage ;;
  *) usage ;;
esac
