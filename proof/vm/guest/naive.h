// The anchor for the gateway's flash figures: what a plain SQLite program
// writes for the same alarms, done the naive way, on the same emulated disk
// in a boot of its own. One row per transaction, each committed durably
// with SQLite's defaults: a rollback journal (journal_mode=DELETE,
// synchronous=FULL), or WAL with synchronous=FULL.
#ifndef OUTPOST_PROOF_VM_GUEST_NAIVE_H
#define OUTPOST_PROOF_VM_GUEST_NAIVE_H

#include <string>

#include "proof/vm/guest/channel.h"

namespace outpost::torture::vm::guest {

struct NaiveOptions {
    std::string dir;              // the database goes here (created)
    std::string mode = "rollback";  // "rollback" or "wal"
    int rows = 200;
    double rate = 0;  // rows per second, evenly spaced; 0: as fast as they commit
};

// Returns 0 when every row committed; reports "vm naive ok" (or an error
// line), the figure "N acknowledged <rows>" and the files' extents.
int run_naive(const NaiveOptions& options, const Channel& channel);

}  // namespace outpost::torture::vm::guest

#endif  // OUTPOST_PROOF_VM_GUEST_NAIVE_H
