#!/bin/sh
# The shipped Prometheus alert rules (deploy/prometheus) load, and their unit
# tests pass: for each rules file, `promtool check rules FILE.yml` and
# `promtool test rules FILE.test.yml`, reported as TAP. Skipped only when
# promtool is absent (scripts/setup installs it with Debian's prometheus
# package).
# Usage: promtool_rules_test.sh RULES_DIR RULES_FILE...
rules_dir=$1
shift
if ! command -v promtool >/dev/null 2>&1; then
  echo "1..0 # SKIP promtool is not installed (Debian package prometheus)"
  exit 0
fi
echo "1..$(($# * 2))"
number=0
run() {  # run DESCRIPTION COMMAND...: one TAP line, the output as comments
  number=$((number + 1)) description=$1
  shift
  if output=$(cd "$rules_dir" && "$@" 2>&1); then
    echo "ok $number - $description"
  else
    echo "not ok $number - $description"
  fi
  printf '%s\n' "$output" | sed 's/^/# /'
}
for rules in "$@"; do
  tests=${rules%.yml}.test.yml
  run "promtool check rules: $rules is valid" promtool check rules "$rules"
  run "promtool test rules: every alert of $rules fires where $tests says and stays quiet elsewhere" \
    promtool test rules "$tests"
done
