#!/usr/bin/env python3
"""Compares the symbols a shared liboutpost exports with the committed list.

  check_symbols.py LIBRARY LIST            exit 0 when they are equal, else
                                           print the difference and exit 1
  check_symbols.py LIBRARY LIST --write    write LIST from LIBRARY

The list has one demangled symbol per line, sorted: the ABI of one
architecture (src/lib/symbols/<cpu family>.txt). A symbol exported but not
listed is usually an internal function that lost its hidden visibility; a
symbol listed but gone breaks every program linked against the library. An
intended change is made with --write and recorded in CHANGELOG.md (and in
the SONAME, as docs/library.md says).

readelf and c++filt (binutils) read the ELF of any architecture, so the
check runs on the build machine for cross builds too.
"""
import subprocess
import sys


def exported(library):
    out = subprocess.run(["readelf", "--dyn-syms", "--wide", library], check=True,
                         capture_output=True, text=True).stdout
    names = []
    for line in out.splitlines():
        fields = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(fields) < 8 or not fields[0].endswith(":"):
            continue
        kind, bind, index, name = fields[3], fields[4], fields[6], fields[7]
        if index == "UND" or bind not in ("GLOBAL", "WEAK") or kind not in ("FUNC", "OBJECT"):
            continue
        names.append(name.split("@")[0])
    demangled = subprocess.run(["c++filt"], input="\n".join(names) + "\n", check=True,
                               capture_output=True, text=True).stdout.splitlines()
    return sorted(set(demangled))


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--write"):
        print(__doc__, file=sys.stderr)
        return 2
    library, listing = sys.argv[1], sys.argv[2]
    now = exported(library)
    if len(sys.argv) == 4:
        with open(listing, "w", encoding="utf-8") as out:
            out.write("".join(name + "\n" for name in now))
        print(f"wrote {len(now)} symbols to {listing}")
        return 0
    try:
        with open(listing, encoding="utf-8") as f:
            committed = [line.rstrip("\n") for line in f if line.strip()]
    except FileNotFoundError:
        print(f"no symbol list {listing} for this architecture: write it with\n"
              f"  {sys.argv[0]} {library} {listing} --write")
        return 1
    added = sorted(set(now) - set(committed))
    removed = sorted(set(committed) - set(now))
    for name in added:
        print(f"exported but not in the list: {name}")
    for name in removed:
        print(f"in the list but no longer exported: {name}")
    if added or removed:
        print(f"{library}: the exported symbols differ from {listing}. An internal function\n"
              "must stay hidden (no OUTPOST_API); an intended change of the ABI is written with\n"
              f"  {sys.argv[0]} {library} {listing} --write\n"
              "and recorded in CHANGELOG.md.")
        return 1
    print(f"{library}: {len(now)} exported symbols, as {listing} lists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
