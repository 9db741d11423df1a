// Which disk contents a power cut can leave, given the block log of a run.
//
// A disk with a volatile write cache makes a write durable only at the next
// completed flush (or at once for a FUA write). A cut between flush k and
// flush k+1 therefore leaves:
//   - every write logged before flush k (the durable prefix), and
//   - any subset of the writes logged between flush k and flush k+1, applied
//     in log order (a later write over the same sector wins when both are
//     kept; the disk may also have kept only the earlier one), FUA writes
//     always; a kept write may even be torn (some of its sectors only).
// This is the dm-log-writes replay model (xfstests' log-writes tests,
// CrashMonkey). A state is named by the flush it includes and a tail policy.
//
// The evidence cut of such a state is flush k+1: an acknowledgement whose
// evidence record is logged before flush k+1 was given after the flush that
// made its alarm durable, which is at most flush k (disk_layout.h).
#ifndef OUTPOST_PROOF_VM_CRASH_STATE_H
#define OUTPOST_PROOF_VM_CRASH_STATE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "proof/vm/block_log.h"

namespace outpost::torture::vm {

enum class TailPolicy {
    kNone,        // cut right after flush k: nothing after it survived
    kAll,         // cut right before flush k+1: everything before it survived
    kRandom,      // each write after flush k survived with probability 1/2
    kRandomTorn,  // kRandom, and one surviving multi-sector write is torn
};

struct CrashState {
    uint64_t id = 0;
    size_t prefix_end = 0;  // entries [0, prefix_end) survived (ends with flush k; 0: none yet)
    size_t cut = 0;         // index of flush k+1, or the number of entries
    TailPolicy tail = TailPolicy::kNone;
    uint64_t seed = 0;  // chooses the surviving tail writes and the tear

    std::string describe() const;
};

// The flush entries of `log`, in order.
std::vector<size_t> flush_points(const BlockLog& log);

// `count` crash states over the log's flush points, for run seed `seed`,
// numbered from `first_id`. With at least as many states as flush points
// every flush point is taken once with tail kNone (replay up to each flush),
// and the rest vary the tail; with fewer, the flush points are spread evenly
// over the log. Sorted by prefix_end (the order a replay reaches them).
std::vector<CrashState> plan_states(const BlockLog& log, uint64_t count, uint64_t seed,
                                    uint64_t first_id);

// The tail entries of `state` that survive, each with the sectors that
// survive of it (all of them unless torn), in log order.
struct SurvivingWrite {
    size_t entry = 0;
    std::vector<bool> sectors;  // empty: all sectors
};
std::vector<SurvivingWrite> surviving_tail(const BlockLog& log, const CrashState& state);

}  // namespace outpost::torture::vm

#endif  // OUTPOST_PROOF_VM_CRASH_STATE_H
