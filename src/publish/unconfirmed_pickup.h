// Receipts: finds the SENT rows a publisher does not track yet
// (rows of an earlier lease or run, or from before receipts were switched
// on), oldest first, for publisher_receipts.cpp to wait their receipts.
//
// Pacing: a look reads as many rows as the caller has room for
// (max_unconfirmed less what it tracks and has in flight, R2), at most
// kMaxLookRows so that a large max_unconfirmed does not read a huge batch
// into memory at once, and the publisher looks again at its next loop round
// while more() holds and room is left. Picking up N rows therefore takes
// about ceil(N / min(room, kMaxLookRows)) looks, back to back: bounded by
// max_unconfirmed and by how fast receipts free room, never by the
// once-a-second probe.
//
// Publisher thread only; not thread-safe.
#ifndef OUTPOST_PUBLISH_UNCONFIRMED_PICKUP_H
#define OUTPOST_PUBLISH_UNCONFIRMED_PICKUP_H

#include <cstdint>
#include <vector>

#include "outpost/status.h"
#include "store/outbox.h"
#include "store/sqlite_db.h"

namespace outpost::publish {

class UnconfirmedPickup final {
  public:
    // Rows one look reads at most (ids and eventIds: ~100 bytes each).
    static constexpr int64_t kMaxLookRows = 4096;

    // The store holds more unconfirmed rows than the caller tracks: look
    // (on) from where the last look stopped.
    void begin() { more_ = true; }
    // A look may still find rows the caller does not track.
    bool more() const { return more_; }
    // Up to `room` unconfirmed rows after the last look's, in id order
    // (some may be tracked already: the caller skips them). A look that
    // comes back short reached the end: more() turns false and the next
    // pickup starts from the first row again. On error nothing moves.
    Result<std::vector<store::UnconfirmedRow>> look(store::Db& reader, int64_t room);
    // A new lease: start from the first row, nothing pending.
    void reset() {
        cursor_ = 0;
        more_ = false;
    }
    // Looks made since construction (tests count them).
    uint64_t looks() const { return looks_; }

  private:
    int64_t cursor_ = 0;  // id of the last row the last full look returned
    bool more_ = false;
    uint64_t looks_ = 0;
};

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_UNCONFIRMED_PICKUP_H
