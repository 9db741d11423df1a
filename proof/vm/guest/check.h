// The guest's check of one crash state: the data disk as a power cut left
// it, attached as a fresh virtio disk. The real kernel mounts it (ext4
// journal recovery), Outpost opens its store there (SQLite's WAL recovery,
// the store's own open checks with an integrity check), retries the calls
// whose outcome the host could not know (same token and idempotency key, as
// a careful application does after a restart), records one new alarm, and
// closes; then the disk is unmounted cleanly. Everything it learns goes to
// the host as lines between "vm begin <serial>" and "vm end <serial>"; the
// host compares the files it left with the evidence (faults/checker.h).
#ifndef OUTPOST_PROOF_VM_GUEST_CHECK_H
#define OUTPOST_PROOF_VM_GUEST_CHECK_H

#include <string>

#include "proof/vm/guest/channel.h"

namespace outpost::torture::vm::guest {

struct CheckOptions {
    std::string device;  // e.g. /dev/vdb
    std::string serial;  // the disk's virtio serial: names the crash state
    std::string gateway_id;
};

// 0 when the disk mounted, the store opened, every call succeeded and the
// disk unmounted; the lines say which step failed otherwise.
int run_check(const CheckOptions& options, const Channel& channel);

}  // namespace outpost::torture::vm::guest

#endif  // OUTPOST_PROOF_VM_GUEST_CHECK_H
