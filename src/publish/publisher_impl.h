// The publisher thread's state. Its methods are spread over three files:
//  publisher_loop.cpp     the thread: wait, dispatch, timers, stop and drain;
//  publisher_session.cpp  lease (flock + epoch) and broker connection;
//  publisher_flow.cpp     rows: fetch, publish, verdicts, retries, marks;
//  publisher_receipts.cpp receipts: confirm, republish (R1-R4).
//
// Threading: everything below "publisher thread only" is touched by the
// publisher thread alone. Other threads reach it only through inbox_ (paho's
// thread, the marker thread, the store's committing threads, stop()) and
// read it only through shared_ (status()).
//
// Invariants:
//  P1. Nothing is published unless the flock is held and epoch_ came from
//      acquire_epoch() under it; every store write passes epoch_.
//  P2. A row is marked SENT only after an kAcked outcome for its own tag.
//  P3. A kLost outcome or a connection loss never calls record_failure.
//  P4. cursor_ never passes a PENDING row that is neither busy, nor held by a
//      blocked device (whose block remembers the lowest id it skipped).
#ifndef OUTPOST_PUBLISH_PUBLISHER_IMPL_H
#define OUTPOST_PUBLISH_PUBLISHER_IMPL_H

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>

#include "common/backoff.h"
#include "outpost/publisher.h"
#include "publish/inbox.h"
#include "publish/latency_sampler.h"
#include "publish/lease.h"
#include "publish/mqtt_link.h"
#include "publish/sent_marker.h"
#include "publish/unconfirmed_pickup.h"
#include "publish/window.h"
#include "store/outbox.h"
#include "store/store_core.h"

namespace outpost {

class publish::PublisherImpl final {
  public:
    // `make_link` builds the broker connection of each lease:
    // publish::make_paho_link in Publisher::start(), a scripted link in unit
    // tests. `store` is borrowed and must outlive it.
    PublisherImpl(Store& store, const PublisherOptions& options, publish::LinkFactory make_link);
    ~PublisherImpl();

    void launch();
    Status stop(std::chrono::milliseconds timeout);
    PublisherStatus status() const;

  private:
    // publisher_loop.cpp
    void run();
    void dispatch(const publish::Mail& mail, int64_t now);
    void housekeeping(int64_t now);
    int64_t next_wake(int64_t now) const;
    Status drain(int64_t deadline);
    void share_status();

    // publisher_session.cpp
    bool take_lease(int64_t now);
    void drop_lease(const std::string& why, int64_t now);
    void connect(int64_t now);
    void connection_lost(const std::string& cause, int64_t now);
    void say_goodbye(std::chrono::milliseconds timeout);

    // publisher_flow.cpp
    void fill_window(int64_t now);
    bool refill_ready();
    void start_publish(store::OutboxRow row, int64_t now, bool retry);
    void on_outcome(const publish::PublishOutcome& outcome, int64_t now);
    void on_refused(publish::Flight flight, const std::string& reason, int64_t now);
    void report_dead(const store::OutboxRow& row, const std::string& reason);
    void report_dead(const DeadEvent& event);
    void on_marks(const publish::MarkReport& report, int64_t now);
    void rewind_to(int64_t id);
    void probe_backlog(int64_t now);
    void note_store_error(const Status& status, int64_t now);

    // publisher_receipts.cpp
    void subscribe_receipts(int64_t now);
    void on_link_message(const publish::LinkEvent& event);
    void on_confirms(const publish::ConfirmReport& report, int64_t now);
    void forget_awaiting(const std::string& event_id);
    void await_receipt(int64_t id, const std::string& event_id, int64_t now);
    // True when `outcome` belongs to a republish (then it is handled).
    bool republish_outcome(const publish::PublishOutcome& outcome, int64_t now);
    void republish_due(int64_t now);
    void abandon_republishes(int64_t now);
    void forget_receipts();
    void track_unconfirmed(int64_t now, int64_t unconfirmed_in_store);
    void pick_up_unconfirmed(int64_t now);
    int64_t unconfirmed_room() const;
    bool room_for_new_rows() const;
    std::optional<int64_t> next_republish() const;

    Store& store_;
    store::StoreCore& core_;
    const PublisherOptions options_;
    const Clock& clock_;
    const std::string gateway_id_;
    const std::string topic_prefix_;  // "outpost/<gatewayId>/"
    const std::string receipt_topic_;  // "outpost/<gatewayId>/receipt"
    const publish::LinkFactory make_link_;
    std::string holder_;  // who we are, for the lease row

    publish::Inbox inbox_;
    publish::LatencySampler commit_latency_;
    publish::LatencySampler publish_latency_;

    // Publisher thread only.
    publish::FileLease lease_;
    int64_t epoch_ = 0;
    std::optional<store::Db> reader_;
    std::unique_ptr<publish::MqttLink> link_;      // per lease (its will names the epoch)
    std::unique_ptr<publish::SentMarker> marker_;  // per lease (it carries the epoch)
    bool connected_ = false;
    bool ever_connected_ = false;
    int64_t connect_failures_in_row_ = 0;
    int64_t max_packet_bytes_ = 0;  // from CONNACK, 0 = not announced
    Backoff reconnect_backoff_;
    Backoff retry_backoff_;
    Backoff receipt_backoff_;  // R4
    publish::Window window_;
    std::deque<store::OutboxRow> ready_;  // fetched, not yet published
    int64_t cursor_ = 0;                  // highest id fetched into ready_
    bool changed_ = true;                 // the database changed since the last fetch
    bool more_ = true;                    // the last fetch was full: more rows may follow
    int64_t data_version_ = -1;
    int64_t oldest_pending_id_ = 0;  // at the last probe_backlog; 0: none
    bool stopping_ = false;
    int64_t next_lease_try_ = 0;
    int64_t next_connect_ = 0;
    int64_t next_poll_ = 0;
    int64_t next_rescan_ = 0;
    int64_t next_purge_ = 0;
    int64_t next_probe_ = 0;
    PublisherStatus live_;
    // Receipts (publisher_receipts.cpp): SENT rows awaiting their receipt,
    // by eventId (R2), and the republishes in flight, by tag.
    struct Awaiting {
        int64_t id = 0;
        int64_t since_ms = 0;     // boot clock: PUBACK, or when this lease found it
        int64_t due_ms = 0;       // next republish
        int64_t republishes = 0;  // by this lease
        uint64_t tag = 0;         // republish in flight; 0: none
    };
    std::unordered_map<std::string, Awaiting> awaiting_;
    std::unordered_map<uint64_t, std::string> republishing_;
    uint64_t next_republish_tag_ = 1;
    publish::UnconfirmedPickup pickup_;  // SENT rows not tracked yet
    // No republish is due before this (boot ms); kNever: none is.
    static constexpr int64_t kNever = INT64_MAX;
    int64_t republish_check_at_ = kNever;

    mutable std::mutex shared_mutex_;
    PublisherStatus shared_;  // guarded by shared_mutex_

    std::mutex stop_mutex_;                      // serialises stop() callers
    std::chrono::milliseconds stop_timeout_{0};  // written before post_stop, read after
    Status stop_result_;                         // written by the thread before it ends
    bool stopped_ = false;                       // guarded by stop_mutex_
    std::thread thread_;
};

}  // namespace outpost

#endif  // OUTPOST_PUBLISH_PUBLISHER_IMPL_H
