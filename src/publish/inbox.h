// Everything that can wake the publisher thread, in one place: commits
// (from the store's commit listener), publish results, incoming receipts
// and connection loss (from the MQTT client's thread), finished SENT marks
// and receipt confirmations (from the marker thread) and a stop request. Producers post and return
// at once; the publisher thread takes everything in one go. Events keep their order, so a PUBACK
// that arrived before a connection loss is processed before it.
#ifndef OUTPOST_PUBLISH_INBOX_H
#define OUTPOST_PUBLISH_INBOX_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "outpost/publisher_options.h"
#include "outpost/status.h"

namespace outpost::publish {

// What happened to one publish, as the MQTT client reported it.
struct PublishOutcome {
    enum class Kind {
        kAcked,    // PUBACK with a success reason code (< 0x80)
        kRefused,  // PUBACK with reason >= 0x80, or refused before sending
        kLost,     // the connection went away first: no verdict, no attempt
    };
    uint64_t tag = 0;
    Kind kind = Kind::kLost;
    std::string reason;      // e.g. "PUBACK reason 0x87 (Not authorized)"
    int64_t at_boot_us = 0;  // Clock::boot_us() when the client reported it
};

struct LinkEvent {
    enum class Kind { kOutcome, kConnectionLost, kMessage };
    Kind kind = Kind::kOutcome;
    PublishOutcome outcome;  // kOutcome
    std::string cause;       // kConnectionLost
    std::string topic;       // kMessage: a message on a subscribed topic
    std::string payload;     // kMessage
};

// The receipts of one transaction applied to the database (or not:
// status), id by id (store::confirm_receipts).
struct ConfirmReport {
    std::vector<std::string> confirmed;  // SENT -> confirmed now
    std::vector<std::string> settled;    // already confirmed: nothing left to wait for
    int64_t ignored = 0;                 // unknown, already confirmed or not SENT
    std::vector<DeadEvent> dead;         // negative receipts: SENT -> DEAD now
    Status status;
};

// A batch of SENT marks that reached the database (or failed to).
struct MarkReport {
    std::vector<int64_t> ids;
    Status status;
};

// What one wait() collected.
struct Mail {
    bool committed = false;  // some transaction committed since the last take
    bool stop = false;
    std::vector<LinkEvent> link_events;
    std::vector<MarkReport> marks;
    std::vector<ConfirmReport> confirms;
    bool empty() const {
        return !committed && !stop && link_events.empty() && marks.empty() && confirms.empty();
    }
};

// Thread-safe.
class Inbox final {
  public:
    void post_commit();
    void post_stop();
    void post_link_event(LinkEvent event);
    void post_marks(MarkReport report);
    void post_confirms(ConfirmReport report);

    // Waits until something was posted or `timeout` passed (measured on the
    // steady clock), then returns and clears everything posted.
    Mail wait(std::chrono::milliseconds timeout);

  private:
    std::mutex mutex_;
    std::condition_variable posted_;
    Mail mail_;  // guarded by mutex_
};

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_INBOX_H
