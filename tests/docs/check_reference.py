#!/usr/bin/env python3
"""Keeps the reference pages honest.

Configuration keys: runs `outpostd --help` and `outpost-bridge --help` from a
build directory, reads every configuration key and its default from the JSON
skeleton each prints (its "configuration" block, rendered from the program's
table of keys), and compares them with the key tables of
docs/reference/outpostd.md and docs/reference/outpost-bridge.md (in their
"## Configuration" section, the first cell of each row names the key, the
third its default: "none" for a required key).

outpostctl: runs `outpostctl --help` and `outpostctl COMMAND --help` for every
command it lists, and compares the commands with the "### COMMAND" headings
of docs/reference/outpostctl.md's "## Commands" section, and every option
(`--name`) the help texts name with those the page names.

Metric families: reads every "outpost_..." name in the code that renders the
metrics (src/daemon/prometheus.cpp, src/bridge/ops/metrics.cpp) and compares them
with the families in the tables of docs/reference/metrics.md.

Fails, listing them, on a key or family the program has that its page lacks,
on one the page documents that the program no longer has, and on a default
the page states that is not the one the program prints.

Usage: check_reference.py BUILD_DIR [--docs DIR] [--source DIR]
Prints TAP: two tests per program (its keys, their defaults), one for
outpostctl, one for the metric families.
"""

import argparse
import json
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
                  os.path.join("src", "bridge", "ops", "metrics.cpp")]
METRICS_PAGE = "metrics.md"

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


def split_comment(line):
    """(JSON text, comment) of a skeleton line: the comment starts at the
    first "//" outside a string."""
    in_string = False
    i = 0
    while i < len(line):
        char = line[i]
        if in_string:
            if char == "\\":
                i += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif line.startswith("//", i):
            return line[:i], line[i + 2:].strip()
        i += 1
    return line, ""


def is_section(value):
    """An object, or an array of objects: its members are keys of their own."""
    return isinstance(value, dict) or (
        isinstance(value, list) and bool(value) and all(isinstance(m, dict) for m in value))


def walk(value, path, out):
    """Every key of `value` in document order, as (dotted path, value);
    members of an array of objects are "array[].member"."""
    for key, member in value.items():
        member_path = f"{path}.{key}" if path else key
        out.append((member_path, member))
        if isinstance(member, dict):
            walk(member, member_path, out)
        elif is_section(member):
            for element in member:
                walk(element, member_path + "[]", out)
    return out


def help_keys(help_text):
    """Every leaf key of the skeleton --help prints, as {dotted path:
    (default, required)}. The skeleton is JSON once its "//" comments are cut
    off; each key has a line of its own, and a comment starting with "*" marks
    a required key (its value is an example, not a default)."""
    parts = [split_comment(line) for line in configuration_block(help_text)]
    try:
        document = json.loads("\n".join(code for code, _ in parts))
    except json.JSONDecodeError as error:
        raise ValueError(f"the configuration skeleton of --help is not JSON: {error}") from None
    # The keys' lines, in order (the order walk() finds them in), each with
    # its comment, which may start on the line below.
    key_lines = []
    for code, comment in parts:
        match = re.match(r'\s*"([^"]+)"\s*:', code)
        if match:
            key_lines.append((match.group(1), comment))
        elif not code.strip() and key_lines and not key_lines[-1][1]:
            key_lines[-1] = (key_lines[-1][0], comment)
    members = walk(document, "", [])
    if [path.rsplit(".", 1)[-1] for path, _ in members] != [name for name, _ in key_lines]:
        raise ValueError("the configuration skeleton of --help does not have one key per line")
    keys = {}
    for (path, value), (_, comment) in zip(members, key_lines):
        if not is_section(value):
            keys.setdefault(path, (value, comment.startswith("*")))
    return keys


def page_keys(page_text):
    """The key tables of the page's "## Configuration" section, as {key:
    default cell}: "| `database.path` | string | none | ..." gives
    {"database.path": "none"} (columns key | type | default | unit | meaning)."""
    keys = {}
    in_section = False
    for line in page_text.splitlines():
        if line.startswith("## "):
            in_section = line.strip() == "## Configuration"
            continue
        if not in_section:
            continue
        row = re.match(r"\|\s*`([^`]+)`\s*\|", line)
        if row and not row.group(1).startswith("-"):
            cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
            keys[row.group(1)] = cells[2].strip() if len(cells) > 2 else ""
    return keys


def page_default(cell):
    """(value, required) of a page's default cell: "none" is a required
    key's; otherwise the cell is JSON once its backticks and a trailing note
    in parentheses ("67108864 (64 MiB)") are taken off. The value is None
    when it is not JSON."""
    if cell == "none":
        return None, True
    text = re.sub(r"\s*\([^()]*\)$", "", cell).strip()
    if len(text) > 1 and text.startswith("`") and text.endswith("`"):
        text = text[1:-1]
    try:
        return json.loads(text), False
    except json.JSONDecodeError:
        return None, False


def same_value(one, other):
    """JSON equality that keeps true apart from 1 (and 0 equal to 0.0)."""
    return one == other and isinstance(one, bool) == isinstance(other, bool)


def default_differences(in_help, on_page, where, page):
    """One line per key both name whose default (or being required) differs."""
    problems = []
    for key in sorted(set(in_help) & set(on_page)):
        value, required = in_help[key]
        cell = on_page[key]
        stated, page_required = page_default(cell)
        if required != page_required:
            problems.append(f"{key}: {'required' if required else 'not required'} in {where}, "
                            f"default '{cell}' in {page}")
        elif not required and not same_value(value, stated):
            problems.append(f"{key}: default {json.dumps(value)} in {where}, '{cell}' in {page}")
    return problems


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
    """(keys in --help, problems with the keys, problems with the defaults)."""
    help_text = subprocess.run([program, "--help"], check=True, capture_output=True,
                               text=True, timeout=30).stdout
    in_help = help_keys(help_text)
    with open(page, encoding="utf-8") as file:
        on_page = page_keys(file.read())
    where = f"`{name} --help`"
    return (len(in_help), differences(set(in_help), set(on_page), where, page),
            default_differences(in_help, on_page, where, page))


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
    print(f"1..{2 * len(PROGRAMS) + 2}")
    failed = False
    number = 0
    for name, relative, page_name in PROGRAMS:
        page = os.path.normpath(os.path.join(arguments.docs, page_name))
        try:
            count, problems, default_problems = check(
                name, os.path.join(arguments.build_dir, relative), page)
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            count, problems, default_problems = 0, [str(error)], [str(error)]
        number += 1
        failed |= report(number, f"every key of {name} --help ({count}) is in "
                         f"docs/reference/{page_name} and every key there is in --help", problems)
        number += 1
        failed |= report(number, f"every default docs/reference/{page_name} states is the one "
                         f"{name} --help prints", default_problems)
    page = os.path.normpath(os.path.join(arguments.docs, OUTPOSTCTL_PAGE))
    try:
        count, problems = check_outpostctl(os.path.join(arguments.build_dir, OUTPOSTCTL), page)
    except (OSError, subprocess.SubprocessError) as error:
        count, problems = 0, [str(error)]
    failed |= report(number + 1, f"every outpostctl command ({count}) and option is in "
                     f"docs/reference/{OUTPOSTCTL_PAGE}, and no other", problems)
    page = os.path.normpath(os.path.join(arguments.docs, METRICS_PAGE))
    try:
        count, problems = check_metrics(arguments.source, page)
    except OSError as error:
        count, problems = 0, [str(error)]
    failed |= report(number + 2, f"every metric family outpostd and outpost-bridge "
                     f"render ({count}) is in docs/reference/{METRICS_PAGE} and no other",
                     problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
