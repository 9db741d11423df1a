#!/usr/bin/env python3
"""Prints "passed failed skipped" from a meson testlog.json (the results of
the last `meson test` in that build). Used by scripts/test and scripts/sanitize."""
import json
import sys

passed = failed = skipped = 0
for line in open(sys.argv[1]):
    result = json.loads(line)["result"]
    if result in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif result == "SKIP":
        skipped += 1
    else:
        failed += 1
print(passed, failed, skipped)
