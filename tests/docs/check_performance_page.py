#!/usr/bin/env python3
"""The performance page renders from saved bench results.

Runs `scripts/performance --render-only SAMPLE --output TMP` on a small
sample of the benches' JSON (tests/docs/performance-sample: a quick run, one
results file per bench run, with the bench that was skipped in it) and
checks the page it writes: every placeholder of docs/performance.md.in
filled, every figure the template asks for drawn (an SVG file the page
shows), and the skipped bench's section saying it was not measured.

Usage: check_performance_page.py SOURCE_ROOT
Exits 0 when the page is whole, 1 listing what is not.
"""

import os
import re
import subprocess
import sys
import tempfile


def main():
    root = os.path.abspath(sys.argv[1])
    sample = os.path.join(root, "tests", "docs", "performance-sample")
    with open(os.path.join(root, "docs", "performance.md.in")) as f:
        template = f.read()
    problems = []
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([os.path.join(root, "scripts", "performance"), "--render-only",
                               sample, "--output", out], capture_output=True, text=True)
        if done.returncode != 0:
            print("scripts/performance --render-only failed (exit %d):\n%s%s" % (
                done.returncode, done.stdout, done.stderr))
            return 1
        with open(os.path.join(out, "performance.md")) as f:
            page = f.read()
        for left in re.findall(r"\{\{[^}]*\}\}", page):
            problems.append("placeholder left unfilled: " + left)
        asked = re.findall(r"\{\{([a-z_]+)\.figure\}\}", template)
        shown = re.findall(r"!\[[^\]]*\]\((performance/[^)]+\.svg)\)", page)
        if len(shown) != len(asked):
            problems.append("the template asks for %d figures (%s), the page shows %d (%s)" % (
                len(asked), ", ".join(asked), len(shown), ", ".join(shown)))
        for target in shown:
            path = os.path.join(out, target)
            if not os.path.isfile(path):
                problems.append("the page shows %s, which is not there" % target)
                continue
            with open(path) as f:
                if "<svg" not in f.read(2000):
                    problems.append("%s is not an SVG drawing" % target)
        # The sample's gateway VM run was skipped (no VM image): its
        # section says so instead of showing an empty table.
        section = page.split("## Flash bytes on an emulated gateway", 1)[-1].split("\n## ", 1)[0]
        if "Not measured in this run: no gateway VM image" not in section:
            problems.append("the skipped gateway VM section does not say it was not measured")
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print("the performance page renders whole: %d figures" % len(shown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
