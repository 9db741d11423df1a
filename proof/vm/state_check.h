// Checking crash states in the VM, a batch per boot: the host writes each
// state's disk (replayed from the recording's log, with the calls to retry
// in its evidence region), boots one VM with them as virtio disks, and the
// guest mounts each in turn with the real kernel and opens the store there
// (guest/check.h); a state whose superblock a cut tore is first repaired
// with e2fsck -y, as a gateway booting with fsck.repair=yes would. Then, on
// the host, for each state: e2fsck on what the guest's kernel recovered, the
// store's files copied out, and the checker (faults/checker.h) holding them
// against the evidence at the state's cut plus the guest's own calls.
#ifndef OUTPOST_PROOF_VM_STATE_CHECK_H
#define OUTPOST_PROOF_VM_STATE_CHECK_H

#include <string>
#include <vector>

#include "proof/checker.h"
#include "proof/vm/crash_state.h"
#include "proof/vm/disk_image.h"
#include "proof/vm/qemu.h"
#include "proof/vm/recording.h"

namespace outpost::torture::vm {

struct StateResult {
    CrashState state;
    faults::CheckReport report;
    // Failures outside the checker's counts: the disk did not mount, the
    // store did not open or take the retries, e2fsck found damage, the guest
    // never reported. Each makes the state an integrity failure.
    std::vector<std::string> problems;
    bool journal_recovered = false;  // the kernel replayed ext4's journal
    bool fsck_repaired = false;      // torn superblock: e2fsck -y ran before the mount
    uint64_t retried = 0;            // calls the guest retried
    std::string image;               // the state's disk image
};

// Checks `states` (in prefix order) with one boot, in `dir` (created).
std::vector<StateResult> check_states(const VmImages& images, const Recording& recording,
                                      Replayer& replayer, const std::vector<CrashState>& states,
                                      const std::string& dir, const std::string& gateway_id);

}  // namespace outpost::torture::vm

#endif  // OUTPOST_PROOF_VM_STATE_CHECK_H
