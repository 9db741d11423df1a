#!/bin/sh
# The shipped Prometheus alert rules (firmware_glue/prometheus) load, and
# their unit tests pass: `promtool check rules` and `promtool test rules`,
# reported as TAP. Skipped only when promtool is absent (scripts/setup
# installs it with Debian's prometheus package).
# Usage: promtool_rules_test.sh RULES_DIR
rules_dir=$1
if ! command -v promtool >/dev/null 2>&1; then
  echo "1..0 # SKIP promtool is not installed (Debian package prometheus)"
  exit 0
fi
echo "1..2"
run() {  # run NUMBER DESCRIPTION COMMAND...: one TAP line, the output as comments
  number=$1 description=$2
  shift 2
  if output=$(cd "$rules_dir" && "$@" 2>&1); then
    echo "ok $number - $description"
  else
    echo "not ok $number - $description"
  fi
  printf '%s\n' "$output" | sed 's/^/# /'
}
run 1 "promtool check rules: outpost-alerts.yml is valid" \
  promtool check rules outpost-alerts.yml
run 2 "promtool test rules: every alert fires where it must and stays quiet elsewhere" \
  promtool test rules outpost-alerts.test.yml
