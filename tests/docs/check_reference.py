#!/usr/bin/env python3
"""Keeps the reference pages honest.

Configuration keys: runs `outpostd --help` and `outpost-bridge --help` from a
build directory, reads every configuration key from the JSON skeleton each
prints (its "configuration" block), and compares them with the keys in the
key tables of docs/reference/outpostd.md and docs/reference/outpost-bridge.md
(the first cell of each table row in their "## Configuration" section).

outpostctl: runs `outpostctl --help` and `outpostctl COMMAND --help` for every
command it lists, and compares the commands with the "### COMMAND" headings
of docs/reference/outpostctl.md's "## Commands" section, and every option
(`--name`) the help texts name with those the page names.

Metric families: reads every "outpost_..." name in the code that renders the
metrics (src/daemon/prometheus.cpp, src/bridge/metrics.cpp) and compares them
with the families in the tables of docs/reference/metrics.md.

Fails, listing them, on a key or family the program has that its page lacks,
and on one the page documents that the program no longer has.

Usage: check_reference.py BUILD_DIR [--docs DIR] [--source DIR]
Prints TAP: one test per program's keys, one for outpostctl, one for the
metric families.
"""

import argparse
import os
import re
import subprocess
import sys

PROGRAMS = [
    # (program, path under the build directory, reference page)
    ("outpostd", os.path.join("src", "daemon", "outpostd"), "outpostd.md"),
    ("outpost-bridge", os.path.join("src", "bridge", "outpost-bridge"), "outpost-bridge.md"),
]

OUTPOSTCTL = os.path.join("src", "cli", "outpostctl")
OUTPOSTCTL_PAGE = "outpostctl.md"

# The files whose string literals name every metric family, and the page.
METRIC_SOURCES = [os.path.join("src", "daemon", "prometheus.cpp"),
                  os.path.join("src", "bridge", "metrics.cpp")]
METRICS_PAGE = "metrics.md"

LITERALS = ("true", "false", "null")


def configuration_block(help_text):
    """The lines of the JSON skeleton: from the "{" after the line starting
    with "configuration" to the "}" at column 0 that closes it."""
    lines = help_text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("configuration")), None)
    if start is None:
        raise ValueError("no line starting with 'configuration' in --help")
    opening = next((i for i in range(start, len(lines)) if lines[i].startswith("{")), None)
    if opening is None:
        raise ValueError("no '{' opening the configuration skeleton in --help")
    closing = next((i for i in range(opening + 1, len(lines)) if lines[i].startswith("}")), None)
    if closing is None:
        raise ValueError("no '}' closing the configuration skeleton in --help")
    return lines[opening:closing + 1]


def json_tokens(line):
    """The JSON tokens at the start of `line`; stops at the first text that
    cannot be JSON, which is where the line's comment begins."""
    tokens = []
    i = 0
    while i < len(line):
        char = line[i]
        if char.isspace():
            i += 1
        elif char in "{}[]:,":
            tokens.append(char)
            i += 1
        elif char == '"':
            end = i + 1
            while end < len(line) and line[end] != '"':
                end += 2 if line[end] == "\\" else 1
            if end >= len(line):
                break  # an unclosed quote: comment text
            tokens.append(line[i:end + 1])
            i = end + 1
        elif char == "-" or char.isdigit():
            number = re.match(r"-?\d+(\.\d+)?([eE][+-]?\d+)?", line[i:])
            if number is None:
                break
            tokens.append(number.group(0))
            i += len(number.group(0))
        else:
            word = re.match(r"[A-Za-z]+", line[i:])
            if word is None or word.group(0) not in LITERALS:
                break  # the comment
            tokens.append(word.group(0))
            i += len(word.group(0))
    return tokens


def help_keys(help_text):
    """Every leaf key of the skeleton as a dotted path; members of an array of
    objects are "array[].member"."""
    keys = set()
    containers = set()
    stack = []  # one entry per open { or [: the path it opens, or None
    pending_key = None
    for line in configuration_block(help_text):
        tokens = json_tokens(line)
        for index, token in enumerate(tokens):
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if token.startswith('"') and following == ":":
                parent = next((entry for entry in reversed(stack) if entry is not None), "")
                pending_key = (parent + "." if parent else "") + token[1:-1]
                keys.add(pending_key)
            elif token == "{":
                if pending_key is not None:
                    containers.add(pending_key)
                    stack.append(pending_key)
                else:
                    stack.append(None)  # the document itself, or an object in an array
                pending_key = None
            elif token == "[":
                if pending_key is not None:
                    stack.append(pending_key + "[]")
                else:
                    stack.append(None)
                pending_key = None
            elif token in ("}", "]"):
                if stack:
                    stack.pop()
                pending_key = None
            elif token != ":":
                pending_key = None
    # An array of objects is a container too ("mapping" -> "mapping[].x").
    containers |= {key for key in keys if any(k.startswith(key + "[].") for k in keys)}
    return keys - containers


def page_keys(page_text):
    """The first cell of each key-table row in the page's "## Configuration"
    section: "| `database.path` | ..." gives "database.path"."""
    keys = set()
    in_section = False
    for line in page_text.splitlines():
        if line.startswith("## "):
            in_section = line.strip() == "## Configuration"
            continue
        if not in_section:
            continue
        row = re.match(r"\|\s*`([^`]+)`\s*\|", line)
        if row and not row.group(1).startswith("-"):
            keys.add(row.group(1))
    return keys


def differences(in_program, on_page, where, page):
    """One line per name the program has and the page lacks, and per name the
    page documents and the program no longer has; `where` says where the
    program's names come from."""
    if not in_program:
        return [f"no name found in {where}"]
    return ([f"{name}: in {where}, missing from {page}" for name in sorted(in_program - on_page)] +
            [f"{name}: documented in {page}, not in {where}"
             for name in sorted(on_page - in_program)])


def check(name, program, page):
    help_text = subprocess.run([program, "--help"], check=True, capture_output=True,
                               text=True, timeout=30).stdout
    in_help = help_keys(help_text)
    with open(page, encoding="utf-8") as file:
        on_page = page_keys(file.read())
    return len(in_help), differences(in_help, on_page, f"`{name} --help`", page)


def run_help(*command):
    return subprocess.run(list(command), check=True, capture_output=True, text=True,
                          timeout=30).stdout


def options_in(text):
    return set(re.findall(r"--[a-z][a-z-]*", text))


def check_outpostctl(program, page):
    tool_help = run_help(program, "--help")
    listing = tool_help.split("Commands:\n", 1)[-1].split("\n\n", 1)[0]
    commands = {line.split()[0] for line in listing.splitlines() if line.strip()}
    help_options = options_in(tool_help)
    for command in commands:
        help_options |= options_in(run_help(program, command, "--help"))
    with open(page, encoding="utf-8") as file:
        page_text = file.read()
    section = page_text.split("\n## Commands\n", 1)[-1].split("\n## ", 1)[0]
    page_commands = set(re.findall(r"^### (\S+)$", section, re.MULTILINE))
    problems = differences(commands, page_commands, "the commands of `outpostctl --help`", page)
    problems += differences(help_options, options_in(page_text),
                            "the options of `outpostctl [COMMAND] --help`", page)
    return len(commands), problems


def documented_families(page):
    """The metric families in the tables of docs/reference/metrics.md (the
    first cell of a row, "| `outpost_backlog` | gauge | ..."), each with its
    type (the second cell). The dashboard and scrape tests read the page
    through this too."""
    with open(page, encoding="utf-8") as file:
        rows = (re.match(r"\|\s*`(outpost_[a-z0-9_]+)`\s*\|\s*([a-z]+)\s*\|", line)
                for line in file)
        return {row.group(1): row.group(2) for row in rows if row}


def check_metrics(source_dir, page):
    in_code = set()
    for relative in METRIC_SOURCES:
        with open(os.path.join(source_dir, relative), encoding="utf-8") as file:
            in_code |= set(re.findall(r'"(outpost_[a-z0-9_]+)"', file.read()))
    on_page = set(documented_families(page))
    return len(in_code), differences(in_code, on_page, " and ".join(METRIC_SOURCES), page)


def report(number, description, problems):
    print(f"{'not ok' if problems else 'ok'} {number} - {description}")
    for problem in problems:
        print(f"# {problem}")
    return bool(problems)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    source_root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    parser.add_argument("--source", default=source_root)
    parser.add_argument("--docs", default=os.path.join(source_root, "docs", "reference"))
    arguments = parser.parse_args()
    print(f"1..{len(PROGRAMS) + 2}")
    failed = False
    for number, (name, relative, page_name) in enumerate(PROGRAMS, start=1):
        page = os.path.normpath(os.path.join(arguments.docs, page_name))
        try:
            count, problems = check(name, os.path.join(arguments.build_dir, relative), page)
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            count, problems = 0, [str(error)]
        failed |= report(number, f"every key of {name} --help ({count}) is in "
                         f"docs/reference/{page_name} and every key there is in --help", problems)
    page = os.path.normpath(os.path.join(arguments.docs, OUTPOSTCTL_PAGE))
    try:
        count, problems = check_outpostctl(os.path.join(arguments.build_dir, OUTPOSTCTL), page)
    except (OSError, subprocess.SubprocessError) as error:
        count, problems = 0, [str(error)]
    failed |= report(len(PROGRAMS) + 1, f"every outpostctl command ({count}) and option is in "
                     f"docs/reference/{OUTPOSTCTL_PAGE}, and no other", problems)
    page = os.path.normpath(os.path.join(arguments.docs, METRICS_PAGE))
    try:
        count, problems = check_metrics(arguments.source, page)
    except OSError as error:
        count, problems = 0, [str(error)]
    failed |= report(len(PROGRAMS) + 2, f"every metric family outpostd and outpost-bridge "
                     f"render ({count}) is in docs/reference/{METRICS_PAGE} and no other",
                     problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
