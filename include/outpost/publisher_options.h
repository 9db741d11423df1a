// How the alarm publisher connects, paces itself and gives up. Every field
// has a default that suits a gateway talking to a broker over a WAN link.
#ifndef OUTPOST_PUBLISHER_OPTIONS_H
#define OUTPOST_PUBLISHER_OPTIONS_H

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "outpost/clock.h"
#include "outpost/mqtt_endpoint.h"

namespace outpost {

// An event that has just turned DEAD: the broker refused it max_attempts
// times, or (receipts on) the bridge quarantined it and said so in a negative
// receipt (PublisherOptions::on_dead).
struct DeadEvent {
    std::string event_id;   // UUIDv7; replay it with StoreAdmin::replay_event
    std::string device_id;  // its device: a gap in this device's seq follows
    int64_t seq = 0;        // its per-device sequence number
    std::string reason;     // why the last attempt failed, as stored in last_error
                            // (e.g. "PUBACK 0x87 Not authorized", or "rejected by
                            // the bridge: schema_violation: ..." from a receipt)
    int64_t attempts = 0;   // message-level failures since the last replay
};

// Called once each time an event turns DEAD (PublisherOptions::on_dead).
using DeadEventCallback = std::function<void(const DeadEvent&)>;

struct PublisherOptions {
    // The broker, credentials, TLS and connection pacing. An empty
    // endpoint.client_id means "outpost-<gatewayId>". Only the lease holder
    // connects, so one id per gateway is enough.
    MqttEndpoint endpoint;

    // W: QoS 1 publishes awaiting their PUBACK at once. Clamped to the
    // broker's Receive Maximum (from CONNACK). At least 1.
    int max_in_flight = 20;

    // A row whose publish the broker refuses (PUBACK reason >= 0x80, payload
    // too large) is retried after a backoff and moves to DEAD when it has
    // failed this many times. Connection failures never count. At least 1.
    int max_attempts = 10;
    std::chrono::milliseconds retry_initial = std::chrono::seconds(1);
    std::chrono::milliseconds retry_max = std::chrono::minutes(5);

    // How often a publisher that does not hold the lease tries the lock again.
    std::chrono::milliseconds lease_retry = std::chrono::milliseconds(250);
    // How often PRAGMA data_version is read to notice commits by other
    // processes (commits by this process wake the publisher at once).
    std::chrono::milliseconds poll_interval = std::chrono::milliseconds(25);
    // Safety net: a full rescan of the outbox from the first row. It also
    // picks up replayed rows, whose ids are below the publisher's cursor.
    std::chrono::milliseconds rescan_interval = std::chrono::seconds(5);
    // How often the publisher thread calls Store::purge_expired().
    std::chrono::milliseconds purge_interval = std::chrono::seconds(10);

    // SENT marks are committed in one transaction when this many PUBACKs
    // have accumulated or when the oldest has waited mark_delay. Marks are
    // committed without a sync of their own (they reach the disk with the
    // next synced commit), so the delay saves flash, not flushes: at a
    // gateway's pace a second's marks share one transaction instead of one
    // each. Waiting marks never hold the window (max_in_flight counts only
    // publishes awaiting their PUBACK). The cost: a crash or power cut
    // publishes again, with their eventIds, at most the rows whose marks
    // were waiting, and a row reads PENDING until its mark commits.
    int mark_batch = 64;
    std::chrono::milliseconds mark_delay = std::chrono::milliseconds(1000);

    // Receipts from outpost-bridge. On (the default): SENT (the broker's
    // PUBACK) is not the end; the publisher subscribes to
    // "outpost/<gatewayId>/receipt" on its own connection, marks a row
    // confirmed when outpost-bridge says RocketMQ stored it, and publishes a
    // SENT row again (same eventId) when no receipt came within
    // receipt_timeout, then after pauses doubling up to receipt_timeout_max
    // (boot clock). Retention and quota purge remove confirmed rows only, so
    // an alarm a broker loses after its PUBACK is published again instead of
    // lost. It needs outpost-bridge with receipts.enabled (its default) and
    // the broker ACL line "pattern read outpost/%u/receipt". Without a bridge
    // that sends them, every alarm is published again on the doubling pauses,
    // at most max_unconfirmed wait at once (new alarms stay PENDING in the
    // store beyond that), and PublisherStatus shows the waiting rows and the
    // age of the oldest. Off: SENT is final, and the guarantee ends at the
    // broker's PUBACK.
    bool receipts = true;
    std::chrono::milliseconds receipt_timeout = std::chrono::seconds(30);
    std::chrono::milliseconds receipt_timeout_max = std::chrono::minutes(10);
    // At most this many rows published and not confirmed (in flight plus
    // SENT awaiting a receipt) at once; new rows wait beyond it. At least
    // max_in_flight.
    int max_unconfirmed = 1000;

    // Clock for every timing decision (boot_ms only; the wall clock is never
    // consulted). Borrowed; must outlive the publisher. nullptr means
    // system_clock().
    const Clock* clock = nullptr;

    // Seed for the backoff jitter; 0 picks one from the process id and time.
    uint64_t jitter_seed = 0;

    // DEAD is loud: called when an event turns DEAD, so the application can
    // log it, count it and tell an operator. Empty means no call (the row is
    // DEAD in the store all the same, and PublisherStatus::dead counts it).
    //  - Thread: the publisher thread ("outpost-pub"), after the transaction
    //    that made the row DEAD committed; once per row each time it turns
    //    DEAD (a replayed row that is refused again reports again).
    //  - It must not block: the publisher sends nothing while it runs. Hand
    //    the report to a queue or write one log line, no network calls.
    //  - It must not call into the Store, StoreAdmin or this Publisher: a
    //    store call waits for a commit (an fsync) on the publisher thread, and
    //    Publisher::stop() from it would wait for itself. Read the row later,
    //    from another thread, if more is needed.
    //  - It must not throw; an exception is caught, dropped and named in
    //    PublisherStatus::last_error.
    //  - The DeadEvent is borrowed for the call only.
    //  - Crash: a process that dies between the commit and the call loses the
    //    report, not the row: the DEAD row stays until replayed or purged
    //    (StoreStats::dead, StoreAdmin::list_events).
    DeadEventCallback on_dead;
};

}  // namespace outpost

#endif  // OUTPOST_PUBLISHER_OPTIONS_H
