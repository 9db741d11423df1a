// Receipts (issue 11): finds the SENT rows a publisher does not track yet
// (rows of an earlier lease or run, or from before receipts were switched
// on), oldest first, for publisher_receipts.cpp to wait their receipts.
//
// Pacing: no per-look constant. A look reads as many rows as the caller
// has room for (max_unconfirmed less what it tracks and has in flight, R2),
// and the publisher looks again at its next loop round while more() holds
// and room is left. Picking up N rows therefore takes ceil(N / room) looks:
// bounded by max_unconfirmed and by how fast receipts free room, never by
// a look's size or the once-a-second probe.
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
