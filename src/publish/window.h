// Which outbox rows the publisher is busy with, and which devices must wait.
//
// Invariants (checked by check_invariants() in debug builds):
//  W1. A row id is in at most one of: in flight, acknowledged-awaiting-mark,
//      retrying. busy(id) is true exactly then, and a busy row is never
//      published again: nothing goes out twice concurrently.
//  W2. in_flight() <= capacity() whenever start() is called.
//  W3. A device is blocked exactly while it has a retrying row; while
//      blocked, none of its rows is started except its retries (in id
//      order), so one device's events leave in sequence order.
#ifndef OUTPOST_PUBLISH_WINDOW_H
#define OUTPOST_PUBLISH_WINDOW_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "store/outbox.h"

namespace outpost::publish {

// One row between publish and verdict.
struct Flight {
    store::OutboxRow row;
    int64_t published_boot_ms = 0;
};

// Publisher-thread only; not thread-safe.
class Window final {
  public:
    explicit Window(int capacity) : capacity_(capacity) {}

    void set_capacity(int capacity) { capacity_ = capacity; }
    int capacity() const { return capacity_; }
    bool full() const { return static_cast<int>(flights_.size()) >= capacity_; }
    int64_t in_flight() const { return static_cast<int64_t>(flights_.size()); }
    int64_t retrying() const { return static_cast<int64_t>(retrying_.size()); }
    bool busy(int64_t id) const { return busy_.count(id) != 0; }
    bool blocked(const std::string& device_id) const { return blocked_.count(device_id) != 0; }

    // Records `row` as published and returns the tag for its outcome.
    // Preconditions: !full(), !busy(row.id).
    uint64_t start(store::OutboxRow row, int64_t now_ms);
    // The envelope of a started row; valid until land() or cancel(tag).
    const std::string& payload(uint64_t tag) const { return flights_.at(tag).row.envelope; }
    // Forgets a start() whose publish call failed at once.
    store::OutboxRow cancel(uint64_t tag);

    // The flight for `tag`, removed from the window; nullopt for a tag that
    // was abandoned (connection loss) or never issued. The row stays busy
    // until acknowledged() + marked(), retry() or released().
    std::optional<Flight> land(uint64_t tag);
    void acknowledged(int64_t id);  // PUBACK OK: busy until marked
    void marked(int64_t id) { busy_.erase(id); }
    void released(int64_t id) { busy_.erase(id); }  // DEAD, or given up

    // Holds a refused row for a retry at `due_ms`; blocks its device.
    void retry(store::OutboxRow row, int64_t due_ms);
    // Retrying rows whose device's earliest retry is due, in id order, as
    // many as the window has room for. They leave the retry set (the caller
    // starts them); a device whose retries all left is unblocked, and the
    // lowest id it blocked is returned in `unblocked_from` (rows of that
    // device from there on were skipped and must be fetched again).
    std::vector<store::OutboxRow> take_due(int64_t now_ms, int64_t* unblocked_from);
    // Earliest retry due time, or nullopt when nothing is retrying.
    std::optional<int64_t> next_due() const;

    // Connection loss: every flight is void (no verdict, no attempt). They
    // stop being busy; returns the lowest such id (0 when none).
    int64_t abandon_flights();
    // Lease loss: forget everything.
    void clear();

    void check_invariants() const;

  private:
    struct Retry {
        store::OutboxRow row;
        int64_t due_ms = 0;
    };
    struct Block {
        int64_t first_id = 0;  // lowest id of the device held back
    };

    int capacity_;
    uint64_t next_tag_ = 1;
    std::unordered_map<uint64_t, Flight> flights_;    // by tag
    std::unordered_set<int64_t> busy_;                // W1
    std::map<int64_t, Retry> retrying_;               // by id
    std::unordered_map<std::string, Block> blocked_;  // by device id
};

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_WINDOW_H
