// The pace of the guest's programs: the nth of a stream of items evenly
// spaced at `rate` per second waits until its time after `start`.
#ifndef OUTPOST_PROOF_VM_GUEST_PACE_H
#define OUTPOST_PROOF_VM_GUEST_PACE_H

#include <chrono>
#include <thread>

namespace outpost::torture::vm::guest {

// Sleeps until item `index` (from 0) is due; at once when `rate` is 0 (as
// fast as the caller goes).
inline void wait_for_turn(std::chrono::steady_clock::time_point start, double index, double rate) {
    if (rate <= 0) return;
    using Duration = std::chrono::steady_clock::duration;
    std::this_thread::sleep_until(
        start + std::chrono::duration_cast<Duration>(std::chrono::duration<double>(index / rate)));
}

}  // namespace outpost::torture::vm::guest

#endif  // OUTPOST_PROOF_VM_GUEST_PACE_H
