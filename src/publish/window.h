// Which outbox rows the publisher is busy with, and which devices must wait.
//
// Order rule: a device whose row was refused is blocked. While blocked, no
// new row of that device is started; its refused rows are retried one at a
// time, lowest id first, each after its backoff. The block lifts when the
// last of them was acknowledged or went DEAD, and the publisher then
// fetches the device's held-back rows again from the first id it blocked.
// Rows of the device already in flight when the first refusal came back
// cannot be recalled: they may arrive before the retry (seq shows it).
//
// Invariants (checked by check_invariants() in debug builds, and stated by
// broken_invariant() in any build):
//  W1. A row id is in at most one of: in flight, acknowledged-awaiting-mark,
//      retrying. busy(id) is true exactly then, and a busy row is never
//      published again: nothing goes out twice concurrently.
//  W2. in_flight() <= capacity() whenever start() is called.
//  W3. A device with a retrying row, or a retry in flight, is blocked; a
//      blocked device has at most one retry in flight.
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
    int64_t published_boot_us = 0;  // Clock::boot_us() as it was handed to the client
    bool retry = false;             // started by take_due()
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
    uint64_t start(store::OutboxRow row, int64_t published_boot_us, bool retry = false);
    // The envelope of a started row; valid until land() or cancel(tag).
    const std::string& payload(uint64_t tag) const { return flights_.at(tag).row.envelope; }
    // Takes back a start() whose publish call failed at once; the row is no
    // longer busy and, for a retry, no longer in flight: settle it with
    // retry() or released() (or rewind, for a plain row).
    Flight cancel(uint64_t tag);

    // The flight for `tag`, removed from the window; nullopt for a tag that
    // was abandoned (connection loss) or never issued. The row stays busy
    // until one of the calls below settles it.
    std::optional<Flight> land(uint64_t tag);
    // PUBACK OK: busy until marked(). Returns the id to fetch again from
    // when this lifted its device's block, else 0.
    int64_t acknowledged(const Flight& flight);
    void marked(int64_t id) { busy_.erase(id); }
    // The row went DEAD (or was given up). Returns as acknowledged().
    int64_t released(const Flight& flight);
    // Refused, attempts left: held for a retry at `due_ms`; blocks its device.
    void retry(const Flight& flight, int64_t due_ms);
    // Puts back a row take_due() returned that could not be started.
    void retry(store::OutboxRow row, int64_t due_ms);

    // For each blocked device without a retry in flight: its lowest retrying
    // row, if due, as long as the window has room. The caller starts them
    // with retry = true.
    std::vector<store::OutboxRow> take_due(int64_t now_ms);
    // Earliest due time among rows take_due() could return, or nullopt.
    std::optional<int64_t> next_due() const;

    // Connection loss: every flight is void (no verdict, no attempt). Plain
    // flights stop being busy and the lowest such id is returned (0 when
    // none); retries go back to the retry set, due at once.
    int64_t abandon_flights(int64_t now_ms);
    // Lease loss: forget everything.
    void clear();

    // Asserts that every invariant holds (debug builds; nothing otherwise).
    void check_invariants() const;
    // The first invariant that does not hold, as "W1: ..." naming the row
    // or device; empty when all hold. Walks the whole window.
    std::string broken_invariant() const;

  private:
    struct Retry {
        store::OutboxRow row;
        int64_t due_ms = 0;
    };
    struct Block {
        int64_t first_id = 0;          // lowest id of the device held back
        bool retry_in_flight = false;  // W3
    };

    void hold(store::OutboxRow row, int64_t due_ms);
    // A retry flight ended (acked or DEAD): unblock if nothing else waits.
    int64_t retry_settled(const std::string& device_id);
    bool has_retrying(const std::string& device_id) const;

    int capacity_;
    uint64_t next_tag_ = 1;
    std::unordered_map<uint64_t, Flight> flights_;    // by tag
    std::unordered_set<int64_t> busy_;                // W1
    std::map<int64_t, Retry> retrying_;               // by id
    std::unordered_map<std::string, Block> blocked_;  // by device id
};

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_WINDOW_H
