// Where a file's blocks lie on its disk (FIEMAP), so the host can tell the
// block log's bytes for the WAL and the database from the file system's own.
#ifndef OUTPOST_PROOF_VM_GUEST_EXTENTS_H
#define OUTPOST_PROOF_VM_GUEST_EXTENTS_H

#include <string>

#include "proof/vm/guest/channel.h"

namespace outpost::torture::vm::guest {

// Sends "vm extent <name> <disk byte offset> <length>" for each extent of
// `path`; nothing if the file does not exist or the ioctl fails.
void report_extents(const std::string& name, const std::string& path, const Channel& channel);

}  // namespace outpost::torture::vm::guest

#endif  // OUTPOST_PROOF_VM_GUEST_EXTENTS_H
