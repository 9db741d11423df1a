#!/usr/bin/env python3
"""Prints the ninja targets a build needs to run some of its tests, so that a
stage builds only what it runs (scripts/test, scripts/sanitize).

  suite_targets.py BUILD [--suite S]... [--name REGEX]... [--installed] [--except NAME]...

A test is selected when it is in one of the --suite suites or its name
matches one of the --name patterns (Python re.search). For each, its program
and the targets it depends on (the programs it starts, e.g. outpostd) are
printed. --installed adds the installed executables, except those named with
--except. Paths are relative to BUILD, one per line, sorted.
"""
import argparse
import json
import os
import re
import subprocess


def introspect(build, what):
    out = subprocess.run(["meson", "introspect", build, what], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--suite", action="append", default=[])
    parser.add_argument("--name", action="append", default=[])
    parser.add_argument("--installed", action="store_true")
    parser.add_argument("--except", dest="excluded", action="append", default=[])
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    targets = introspect(build, "--targets")
    files_of = {target["id"]: target["filename"] for target in targets}
    paths = set()
    for test in introspect(build, "--tests"):
        in_suite = any(suite.split(":")[-1] in args.suite for suite in test["suite"])
        named = any(re.search(pattern, test["name"]) for pattern in args.name)
        if in_suite or named:
            paths.add(test["cmd"][0])
            for dependency in test.get("depends", []):
                paths.update(files_of.get(dependency, []))
    if args.installed:
        for target in targets:
            if (target["type"] == "executable" and target["installed"]
                    and target["name"] not in args.excluded):
                paths.update(target["filename"])
    for path in sorted(paths):
        # A test run by a script from the source tree has nothing to build.
        if os.path.commonpath([path, build]) == build:
            print(os.path.relpath(path, build))


if __name__ == "__main__":
    main()
