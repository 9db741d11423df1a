#!/usr/bin/env python3
"""Compares the ABI of a shared liboutpost with the committed baseline.

  check_abi.py LIBRARY HEADERS BASELINE            exit 0 when abidiff finds
                                                   no change, else print its
                                                   report and exit 1
  check_abi.py LIBRARY HEADERS BASELINE --write    write BASELINE from LIBRARY
  check_abi.py --skip REASON                       print REASON, exit 77 (skip)

The ABI is more than the exported names check_symbols.py holds: the types of
the functions' parameters and results, and the size and layout of every
struct and class the public headers (HEADERS, include/outpost) declare.
abidw (libabigail) reads them from the library's debug info; the baseline is
its XML for one architecture (src/lib/abi/<cpu family>.abi). The library
must be built with debug info (-g: the debug and debugoptimized build types).

Every difference fails, compatible ones included (a new function, a new
enumerator, a field appended to a struct): the baseline moves only in a
commit that means to move it, written with --write and recorded in
CHANGELOG.md, and the SONAME follows docs/library.md ("ABI and versions").
"""
import os
import shutil
import subprocess
import sys
import tempfile

# What abidw keeps: only the interfaces the library exports and the types
# they reach (types declared outside HEADERS are dropped, the C++ standard
# library's are kept where a public type holds one); no paths, line numbers
# or parameter names, which move without changing the ABI; type ids hashed
# from the type, so that a deliberate change shows as a small diff of the
# baseline. A rebuild writes the same file. A build whose objects were
# compiled in different directories (a shared ccache) reads them in another
# order and may give two types whose hashes collide each other's id: the
# text differs, the ABI does not, and abidiff, not the text, decides.
ABIDW_OPTIONS = [
    "--exported-interfaces-only", "--drop-private-types",
    "--no-corpus-path", "--no-comp-dir-path", "--no-show-locs", "--no-parameter-names",
    "--type-id-style", "hash",
]

# abidiff's exit status is a bit mask: 1 an error, 2 a usage error, 4 an ABI
# change, 8 a change that breaks programs built against the old library.
ABIDIFF_ERROR, ABIDIFF_USAGE_ERROR = 1, 2
ABIDIFF_ABI_CHANGE, ABIDIFF_INCOMPATIBLE_CHANGE = 4, 8

INSTALL_HINT = ("abidw and abidiff (libabigail) are not installed: scripts/setup installs\n"
                "them, or: apt-get install abigail-tools")


def sort_translation_units(path):
    """Orders abidw's <abi-instr> elements (one per source file) by their
    text. abidw orders them by the directory each object was compiled in
    as well, so a build that took objects from ccache, compiled elsewhere,
    would otherwise write them in another order."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    head, units, tail, unit = [], [], [], None
    for line in lines:
        if line.startswith("  <abi-instr "):
            unit = [line]
        elif unit is not None:
            unit.append(line)
            if line.startswith("  </abi-instr>"):
                units.append("".join(unit))
                unit = None
        elif units:
            tail.append(line)
        else:
            head.append(line)
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(head) + "".join(sorted(units)) + "".join(tail))


def write_abi(library, headers, out):
    """True when abidw wrote the ABI of LIBRARY to OUT; else says why."""
    run = subprocess.run(["abidw", *ABIDW_OPTIONS, "--headers-dir", headers, "--out-file", out,
                          library], capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stdout + run.stderr)
        print(f"abidw could not read {library} (exit status {run.returncode})")
        return False
    sort_translation_units(out)
    # Without types in the debug info (no -g, or -g1) abidw still writes the
    # symbols, and every type would look changed or gone.
    with open(out, encoding="utf-8") as f:
        if "<function-decl " not in f.read():
            print(f"{library} has no types in its debug info: build it with -g (the debug or\n"
                  "debugoptimized build type, without -g1)")
            return False
    return True


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--skip":
        print(args[1])
        return 77
    if len(args) not in (3, 4) or (len(args) == 4 and args[3] != "--write"):
        print(__doc__, file=sys.stderr)
        return 2
    library, headers, baseline = args[:3]
    if not (shutil.which("abidw") and shutil.which("abidiff")):
        print(INSTALL_HINT)
        return 1
    write_command = f"  {sys.argv[0]} {library} {headers} {baseline} --write"
    if len(args) == 4:
        os.makedirs(os.path.dirname(baseline) or ".", exist_ok=True)
        if not write_abi(library, headers, baseline):
            return 1
        print(f"wrote the ABI of {library} to {baseline}")
        return 0
    if not os.path.exists(baseline):
        print(f"no ABI baseline {baseline} for this architecture: write it with\n{write_command}")
        return 1
    with tempfile.TemporaryDirectory(prefix="outpost-abi.") as work:
        current = os.path.join(work, "current.abi")
        if not write_abi(library, headers, current):
            return 1
        # --harmless: a new enumerator or a renamed typedef is a change of
        # the ABI too, even if abidiff would call it harmless.
        report = subprocess.run(["abidiff", "--harmless", "--no-show-locs", baseline, current],
                                capture_output=True, text=True)
    status = report.returncode
    if status & (ABIDIFF_ERROR | ABIDIFF_USAGE_ERROR):
        print(report.stdout + report.stderr)
        print(f"abidiff could not compare {baseline} with {library} (exit status {status})")
        return 1
    if status & (ABIDIFF_ABI_CHANGE | ABIDIFF_INCOMPATIBLE_CHANGE):
        print(report.stdout)
        # abidiff calls a change incompatible only when symbols go or change
        # their type; a struct that grows in the middle breaks callers too,
        # so the report, not the bit, says how bad it is.
        kind = (", incompatibly: symbols are gone" if status & ABIDIFF_INCOMPATIBLE_CHANGE else "")
        print(f"{library}: its ABI differs from {baseline}{kind} (abidiff's report above).\n"
              "A public struct, class or function changed without meaning to: undo it. An\n"
              "intended change of the ABI is written with\n"
              f"{write_command}\n"
              "(or: ninja -C BUILD abi-baseline) and recorded in CHANGELOG.md; the SONAME\n"
              "follows docs/library.md, \"ABI and versions\".")
        return 1
    print(f"{library}: the ABI is the one {baseline} holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
