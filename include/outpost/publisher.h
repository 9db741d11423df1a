// The alarm publisher: one thread that forwards the outbox of a Store over
// MQTT v5 at QoS 1 (DESIGN.md "Publisher").
//
// Promises:
//  - At most one publisher, in any process, publishes from one database at
//    a time. Ownership is a lease: an flock on "<database>.lock" proves the
//    holder alive; each acquisition takes a new epoch in the database, and
//    every state change carries it, so a stale holder can change nothing.
//    A publisher without the lease publishes nothing and retries the lock
//    every PublisherOptions::lease_retry; it takes over when the holder dies.
//  - A row becomes SENT only after its own PUBACK arrived with a success
//    reason code (< 0x80). After a crash every unmarked row is published
//    again: at least once, duplicates carry the same eventId.
//  - Connection failures (broker down, TLS, network) pause publishing and
//    count no attempt on any row. Message-level refusals (PUBACK reason
//    >= 0x80, payload above the broker's maximum packet size) count one
//    attempt; the row goes DEAD after max_attempts, with the reason code and
//    its name in last_error.
//  - Events of one device leave in sequence order: while a row of a device
//    waits for a retry after a refusal, later rows of that device wait too.
//    Rows already in flight behind a refused row cannot be recalled; they may
//    arrive before its retry (the envelope's seq shows it downstream). A
//    DEAD row leaves a gap in that device's sequence.
//  - Topic "outpost/<gatewayId>/<topic_suffix>", payload the stored envelope
//    bytes exactly. A retained "online" status on every connect and a
//    retained will "offline" at "outpost/<gatewayId>/status".
//  - No decision depends on the wall clock.
#ifndef OUTPOST_PUBLISHER_H
#define OUTPOST_PUBLISHER_H

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "outpost/export.h"
#include "outpost/publisher_options.h"
#include "outpost/status.h"
#include "outpost/store.h"

namespace outpost {

namespace publish {
class PublisherImpl;  // the publisher thread's state; internal
}  // namespace publish

// A snapshot of what the publisher is doing. Counters count since start().
struct PublisherStatus {
    bool lease_held = false;
    int64_t lease_epoch = 0;  // 0 until the lease was acquired
    bool connected = false;
    int window = 0;       // W in use (after the broker's Receive Maximum)
    int64_t backlog = 0;  // PENDING rows at the last look (whole database)
    // Age of the oldest PENDING row on the boot clock, -1 when unknown (no
    // backlog, or the row was recorded in an earlier boot).
    int64_t oldest_pending_age_ms = -1;
    int64_t in_flight = 0;    // published, PUBACK not yet received
    int64_t retrying = 0;     // refused rows waiting for their backoff
    uint64_t published = 0;   // publishes handed to the client (incl. repeats)
    uint64_t sent = 0;        // rows marked SENT by this publisher
    uint64_t refused = 0;     // message-level failures recorded
    uint64_t dead = 0;        // rows this publisher moved to DEAD
    uint64_t reconnects = 0;  // successful connects after the first
    uint64_t connect_failures = 0;
    uint64_t rescans = 0;  // safety-net scans from the first row
    // Receipts (PublisherOptions::receipts; all zero, and the age -1, when off):
    uint64_t confirmed = 0;           // rows this publisher moved SENT -> confirmed
    int64_t awaiting_receipt = 0;     // SENT rows without a receipt (whole database)
    uint64_t republished = 0;         // publishes again of SENT rows whose receipt timed out
    uint64_t receipts_ignored = 0;    // receipt ids unknown, already confirmed or not SENT
    uint64_t receipts_malformed = 0;  // receipt messages that did not parse
    // Receipt messages of a newer format version than this publisher reads,
    // ignored whole (a bridge newer than the gateway: not an error).
    uint64_t receipts_newer = 0;
    // Rows a negative receipt made DEAD: the bridge quarantined the event
    // (counted in `dead` too; the reason is in the row's last_error).
    uint64_t rejected = 0;
    // Boot-clock age of the oldest SENT row this publisher waits a receipt
    // for (since its PUBACK, or since this lease found it), -1 when none.
    int64_t oldest_unconfirmed_age_ms = -1;
    // Rounds of the publisher loop so far. While the thread is healthy it
    // advances at least once a second (more often with the lease), also
    // while it waits for the lease or a reconnect; a connection attempt can
    // hold it for up to PublisherOptions::endpoint.connect_timeout. A supervisor
    // (the daemon's watchdog) treats a heartbeat that stops as a hung
    // publisher.
    uint64_t loop_heartbeat = 0;
    // Latency percentiles over the last few thousand rows, -1 when there is
    // no sample yet:
    //   commit: from the row's recording (envelope uptimeMs, same boot only)
    //           to its PUBACK;
    //   publish: from handing the row to the client to its PUBACK.
    // In microseconds, because a publish to a broker on the same machine or
    // LAN is acknowledged in well under a millisecond, which whole
    // milliseconds would show as 0. publish: both ends read CLOCK_BOOTTIME
    // in microseconds. commit: the envelope keeps uptimeMs in whole
    // milliseconds, so the recording is taken as the middle of its
    // millisecond: within +-0.5 ms per sample.
    int64_t commit_to_ack_p50_us = -1;
    int64_t commit_to_ack_p99_us = -1;
    int64_t publish_to_ack_p50_us = -1;
    int64_t publish_to_ack_p99_us = -1;
    std::string last_error;  // most recent connection or store error
};

class OUTPOST_API Publisher final {
  public:
    // Starts the publisher thread ("outpost-pub") for `store`, which is
    // borrowed and must outlive the publisher. Returns at once: the lease
    // and the broker connection are acquired in the background (see
    // status()). Errors: kInvalidArgument for bad options (nothing started).
    static Result<std::unique_ptr<Publisher>> start(Store& store, const PublisherOptions& options);

    // Stops like stop(kDefaultStopTimeout).
    ~Publisher();
    Publisher(const Publisher&) = delete;
    Publisher& operator=(const Publisher&) = delete;

    static constexpr std::chrono::milliseconds kDefaultStopTimeout{5000};

    // Stops the thread: publishes nothing new, waits up to `timeout` for
    // the PUBACKs of what is in flight, marks the acknowledged rows SENT,
    // publishes the retained "offline" status, disconnects and releases the
    // lease. Rows still unacknowledged stay PENDING (published again by the
    // next holder). Returns OK, or kTimeout if PUBACKs were still missing
    // at the deadline (the stop completes anyway). A connection attempt in
    // progress is not interrupted: the stop can take up to
    // PublisherOptions::endpoint.connect_timeout longer. Idempotent; later calls
    // return OK at once.
    Status stop(std::chrono::milliseconds timeout = kDefaultStopTimeout);

    // Thread-safe; cheap.
    PublisherStatus status() const;

  private:
    OUTPOST_LOCAL explicit Publisher(std::unique_ptr<publish::PublisherImpl> impl);
    std::unique_ptr<publish::PublisherImpl> impl_;
};

}  // namespace outpost

#endif  // OUTPOST_PUBLISHER_H
