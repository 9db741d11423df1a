// The gateway workload inside the VM: alarms raised through outpostd's
// socket by several connections at once, each call reported to the host
// before it is made (S) and after its answer (A or F), starts and
// acknowledgements also written as evidence records on the data disk
// (disk_layout.h); then
// it waits until the publisher has drained the outbox, and reports figures.
#ifndef OUTPOST_PROOF_VM_GUEST_WORKLOAD_H
#define OUTPOST_PROOF_VM_GUEST_WORKLOAD_H

#include <chrono>
#include <string>

#include "proof/vm/guest/channel.h"

namespace outpost::torture::vm::guest {

struct WorkloadOptions {
    std::string socket;      // outpostd's alarm socket
    std::string device;      // the data disk, for evidence records (empty: none)
    std::string store_path;  // the store, for its extents on the disk
    std::string prefix;      // call tokens start with it (unique per run)
    int alarms = 200;        // over all connections
    int connections = 4;
    // Alarms per second over all connections, evenly spaced (a gateway's
    // occasional alarms); 0 raises them as fast as outpostd answers.
    double rate = 0;
    std::chrono::seconds limit{300};  // for outpostd to listen, and then to drain
};

// Returns 0 when every call was answered and the outbox drained; the lines
// sent over `channel` say what happened either way.
int run_workload(const WorkloadOptions& options, const Channel& channel);

}  // namespace outpost::torture::vm::guest

#endif  // OUTPOST_PROOF_VM_GUEST_WORKLOAD_H
