#!/usr/bin/env bash
# The reference consumer's own JUnit tests (consumer/src/test: envelope
# rules, the dedupe transaction, migrations and purge on SQLite and, with
# OUTPOST_POSTGRES_ENV, on PostgreSQL; the documented DDL; with
# OUTPOST_ROCKETMQ_AUTH_ENV and OUTPOST_ROCKETMQ_TLS_ENV, consuming from the
# authenticating and the TLS-only RocketMQ), run by Maven Surefire through
# scripts/consumer.sh test, reported as one TAP test per test class.
# SKIP when no JDK or Maven is installed (scripts/setup --native).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
if ! command -v javac >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
  echo "1..0 # SKIP no JDK or Maven (scripts/setup installs them)"
  exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$repo/scripts/consumer.sh" test >"$log" 2>&1
status=$?
reports="$repo/scripts/.consumer/target/surefire-reports"
mapfile -t classes < <(ls "$reports"/*.txt 2>/dev/null)
if ((${#classes[@]} == 0)); then
  echo "1..1"
  echo "not ok 1 - scripts/consumer.sh test ran no test class: $(tail -3 "$log" | tr '\n' ' ')"
  exit 0
fi
echo "1..$((${#classes[@]} + 1))"
n=0
for report in "${classes[@]}"; do
  n=$((n + 1))
  name=$(basename "$report" .txt)
  line=$(grep -m1 '^Tests run:' "$report")
  if [[ $status -eq 0 || "$line" == *"Failures: 0, Errors: 0"* ]]; then
    echo "ok $n - $name: $line"
  else
    echo "not ok $n - $name: $line"
    grep -E '<<< (FAILURE|ERROR)|expected|lacks' "$report" | head -5 | sed 's/^/# /'
  fi
done
n=$((n + 1))
if [[ $status -eq 0 ]]; then
  echo "ok $n - scripts/consumer.sh test exited 0"
else
  echo "not ok $n - scripts/consumer.sh test exited $status: $(tail -3 "$log" | tr '\n' ' ')"
fi
