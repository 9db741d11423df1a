#!/bin/sh
# Run by `meson install` of a build with fault points (src/common/fault_point.h):
# an installed outpostd or liboutpost that honours OUTPOST_FAULT can be made
# to kill itself at a chosen place by anyone who sets its environment. Such
# builds are for tests; a gateway image installs a release build. The files
# are already copied when Meson runs this script, so it fails the install
# loudly instead. OUTPOST_INSTALL_FAULT_POINTS=1 installs a test build on
# purpose.
if [ "${OUTPOST_INSTALL_FAULT_POINTS:-0}" = 1 ]; then
  echo "outpost: installed a build WITH fault points (OUTPOST_INSTALL_FAULT_POINTS=1): for tests only" >&2
  exit 0
fi
cat >&2 <<'TEXT'
outpost: this build has fault points (meson option fault_points; on for the
debug and debugoptimized build types): the installed outpostd and liboutpost
obey OUTPOST_FAULT, which lets whoever sets a process's environment kill it at
a chosen place. Do not ship these files. Configure the build for a gateway with
  meson setup BUILD --buildtype=release        (or -Dfault_points=disabled)
and install again. To install a test build on purpose, set
OUTPOST_INSTALL_FAULT_POINTS=1.
TEXT
exit 1
