#!/usr/bin/env python3
"""Keeps the shipped Grafana dashboard honest, without a Grafana.

1. The file is JSON in the shape Grafana imports: a title, a "panels" list,
   each panel with an id, a type and a gridPos; every panel that is not a
   row has "targets", each with a refId and a non-empty PromQL "expr".
2. Every expression parses as PromQL: all of them, Grafana's variables
   replaced by values of their kind, are written into one temporary rules
   file as recording rules and checked with `promtool check rules`.
3. Every metric an expression names is a family documented in
   docs/reference/metrics.md (read with check_reference.py's parser), a
   histogram's _bucket/_sum/_count series counting as their family, or one
   of Prometheus's own series listed in PROMETHEUS_SERIES.
4. Every family documented there has a panel: a new metric gets one.

Usage: check_dashboard.py DASHBOARD.json METRICS_PAGE
Prints TAP, one test per check. The PromQL check is skipped when promtool is
absent (scripts/setup installs it with Debian's prometheus package).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_reference import documented_families  # noqa: E402

# Series Prometheus itself writes for every target, not Outpost's.
PROMETHEUS_SERIES = {"up"}

# Grafana's variables and what they stand for in a PromQL check: a range for
# the interval ones, a regular expression for the template variables (which
# only appear inside label matchers' strings).
GRAFANA_RANGES = re.compile(r"\$__(rate_interval|interval|range)|\$\{__(rate_interval|interval|range)\}")

# PromQL words that look like metric names but are not.
KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left",
            "group_right", "bool", "offset", "inf", "nan", "atan2", "start", "end"}

HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def panels_of(dashboard):
    """Every panel, those nested in collapsed rows included."""
    for panel in dashboard.get("panels", []):
        yield panel
        yield from panel.get("panels", [])


def shape_problems(dashboard):
    problems = []
    if not isinstance(dashboard, dict):
        return ["the document is not a JSON object"]
    if not isinstance(dashboard.get("title"), str) or not dashboard["title"]:
        problems.append("no title")
    if not isinstance(dashboard.get("panels"), list) or not dashboard["panels"]:
        return problems + ["no panels list"]
    ids = set()
    for index, panel in enumerate(panels_of(dashboard)):
        where = f"panel {index} ({panel.get('title', 'untitled')})"
        for key in ("id", "type", "gridPos", "title"):
            if key not in panel:
                problems.append(f"{where}: no {key}")
        if panel.get("id") in ids:
            problems.append(f"{where}: id {panel.get('id')} used twice")
        ids.add(panel.get("id"))
        if panel.get("type") == "row":
            continue
        targets = panel.get("targets")
        if not isinstance(targets, list) or not targets:
            problems.append(f"{where}: no targets")
            continue
        for target in targets:
            if not target.get("refId"):
                problems.append(f"{where}: a target without refId")
            if not isinstance(target.get("expr"), str) or not target["expr"].strip():
                problems.append(f"{where}: target {target.get('refId')} without expr")
    return problems


def expressions(dashboard):
    """(where, expr) for every target's expression."""
    return [(f"{panel.get('title')} / {target.get('refId')}", target["expr"])
            for panel in panels_of(dashboard) for target in panel.get("targets", [])
            if isinstance(target.get("expr"), str) and target["expr"].strip()]


def promql_problems(exprs):
    """`promtool check rules` on a rules file holding every expression."""
    rules = [{"record": f"dashboard:expression_{number}",
              "expr": GRAFANA_RANGES.sub("5m", expr)}
             for number, (_, expr) in enumerate(exprs)]
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "dashboard-expressions.yml")
        with open(path, "w", encoding="utf-8") as file:
            # JSON is YAML: no YAML library needed to write the rules file.
            json.dump({"groups": [{"name": "dashboard", "rules": rules}]}, file, indent=1)
        result = subprocess.run(["promtool", "check", "rules", path], capture_output=True,
                                text=True, timeout=60)
    if result.returncode == 0:
        return []
    problems = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    # promtool names the failing rule: say which panel's target it is.
    for number, (where, expr) in enumerate(exprs):
        if any(f'"dashboard:expression_{number}"' in line for line in problems):
            problems.append(f"(dashboard:expression_{number} is {where}: {expr})")
    return problems


def metric_names(expr):
    """The metric names an expression selects: identifiers left once strings,
    label matchers, ranges and grouping clauses are removed, that are neither
    a function call nor a keyword."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for match in re.finditer(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", text):
        if match.group(2) is None and match.group(1).lower() not in KEYWORDS:
            names.add(match.group(1))
    return names


def family_of(name, documented):
    if name in documented:
        return name
    for suffix in HISTOGRAM_SUFFIXES:
        base = name[:-len(suffix)]
        if name.endswith(suffix) and documented.get(base) == "histogram":
            return base
    return None


def metric_problems(exprs, documented):
    problems = []
    for where, expr in exprs:
        for name in sorted(metric_names(expr)):
            if name not in PROMETHEUS_SERIES and family_of(name, documented) is None:
                problems.append(f"{where}: {name} is not a family of docs/reference/metrics.md")
    return problems


def coverage_problems(exprs, documented):
    shown = {family_of(name, documented) for _, expr in exprs for name in metric_names(expr)}
    return [f"{family}: documented, on no panel" for family in sorted(set(documented) - shown)]


def report(number, description, problems, skip=None):
    if skip:
        print(f"ok {number} - {description} # SKIP {skip}")
        return False
    print(f"{'not ok' if problems else 'ok'} {number} - {description}")
    for problem in problems:
        print(f"# {problem}")
    return bool(problems)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    dashboard_path, page = sys.argv[1:]
    print("1..4")
    name = os.path.basename(dashboard_path)
    try:
        with open(dashboard_path, encoding="utf-8") as file:
            dashboard = json.load(file)
        problems = shape_problems(dashboard)
    except (OSError, ValueError) as error:
        dashboard, problems = {}, [str(error)]
    failed = report(1, f"{name} is JSON in Grafana's dashboard shape, every panel with "
                    "its targets' expressions", problems)
    exprs = expressions(dashboard) if isinstance(dashboard, dict) else []
    failed |= report(2, f"every expression of {name} ({len(exprs)}) parses as PromQL "
                     "(promtool check rules)",
                     promql_problems(exprs) if shutil.which("promtool") else [],
                     skip=None if shutil.which("promtool") else
                     "promtool is not installed (Debian package prometheus)")
    try:
        documented = documented_families(page)
    except OSError as error:
        documented = {}
    missing = [f"no metric family found in {page}"] if not documented else []
    failed |= report(3, f"every metric {name} names is documented in "
                     "docs/reference/metrics.md", missing + metric_problems(exprs, documented))
    failed |= report(4, f"every family docs/reference/metrics.md documents ({len(documented)}) "
                     f"has a panel in {name}", missing + coverage_problems(exprs, documented))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
