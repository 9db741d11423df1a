// Rows through the window: fetch in id order, publish, and act on each
// verdict (P2, P3 in publisher_impl.h).
#include <algorithm>
#include <cassert>
#include <exception>
#include <string>

#include "common/fault_point.h"
#include "publish/envelope_clock.h"
#include "publish/publisher_impl.h"

namespace outpost {
namespace {

// Rows read per fetch. The fetch runs on the publisher thread and stalls
// the window meanwhile (alarm envelopes are rebuilt on read: 3-5 us a row,
// read included, on a 2-core x86); 64 measured no better than 256 on a
// loaded box. Every fetched row waits in ready_ with its envelope, so while
// a backlog drains the fetch size is resident heap: 64 rows (about three
// windows of 20) instead of 256.
constexpr int kFetchRows = 64;
// MQTT PUBLISH overhead besides topic and payload: fixed header (5),
// topic length (2), packet id (2), properties length (4), with margin.
constexpr int64_t kPublishOverheadBytes = 16;

}  // namespace

void publish::PublisherImpl::fill_window(int64_t now) {
    if (stopping_) return;
    // Retries first: they are older than anything fetched since (W3).
    for (store::OutboxRow& row : window_.take_due(now)) {
        if (connected_) {
            start_publish(std::move(row), now, /*retry=*/true);
        } else {
            window_.retry(std::move(row), now);  // the connection went meanwhile
        }
    }
    while (connected_ && room_for_new_rows()) {
        if (ready_.empty() && !refill_ready()) return;
        store::OutboxRow row = std::move(ready_.front());
        ready_.pop_front();
        // Busy: in flight, acknowledged or retrying already (W1). Blocked:
        // an earlier row of this device awaits its retry (W3); the block
        // remembers where to come back to (P4).
        if (window_.busy(row.id) || window_.blocked(row.device_id)) continue;
        start_publish(std::move(row), now, /*retry=*/false);
    }
}

bool publish::PublisherImpl::refill_ready() {
    if (!changed_ && !more_) return false;
    changed_ = false;  // before reading: a commit from now on sets it again
    auto rows = store::fetch_pending(*reader_, cursor_, kFetchRows);
    if (!rows) {
        changed_ = true;  // try again at the next poll
        more_ = false;
        note_store_error(rows.status(), clock_.boot_ms());
        return false;
    }
    more_ = static_cast<int>(rows->size()) == kFetchRows;
    if (rows->empty()) return false;
    cursor_ = rows->back().id;
    for (store::OutboxRow& row : *rows) ready_.push_back(std::move(row));
    return true;
}

void publish::PublisherImpl::start_publish(store::OutboxRow row, int64_t now, bool retry) {
    const std::string topic = topic_prefix_ + row.topic_suffix;
    const int64_t packet_bytes =
        static_cast<int64_t>(topic.size() + row.envelope.size()) + kPublishOverheadBytes;
    if (max_packet_bytes_ > 0 && packet_bytes > max_packet_bytes_) {
        // The broker would drop the connection for it: refuse it here, as a
        // message-level failure of this row only.
        on_refused(publish::Flight{std::move(row), clock_.boot_us(), retry},
                   "payload too large: " + std::to_string(packet_bytes) +
                       " bytes exceed the broker's maximum packet size of " +
                       std::to_string(max_packet_bytes_),
                   now);
        return;
    }
    const uint64_t tag = window_.start(std::move(row), clock_.boot_us(), retry);
    Status status = link_->publish(topic, window_.payload(tag), tag);
    if (status) {
        OUTPOST_FAULT_POINT("publish.after_publish");
        live_.published++;
        return;
    }
    publish::Flight back = window_.cancel(tag);
    if (status.code() == StatusCode::kRejected) {
        on_refused(std::move(back), status.message(), now);
        return;
    }
    if (back.retry) {
        window_.retry(back, now);
    } else {
        rewind_to(back.row.id);
    }
    connection_lost(status.message(), now);
}

void publish::PublisherImpl::on_outcome(const publish::PublishOutcome& outcome, int64_t now) {
    if (republish_outcome(outcome, now)) return;  // receipts
    std::optional<publish::Flight> flight = window_.land(outcome.tag);
    if (!flight) return;  // abandoned at a connection loss: already pending again
    const store::OutboxRow& row = flight->row;
    switch (outcome.kind) {
        case publish::PublishOutcome::Kind::kAcked: {
            OUTPOST_FAULT_POINT("publish.after_puback");
            rewind_to(window_.acknowledged(*flight));  // a lifted block: fetch its rows
            marker_->add(row.id);                      // P2: its own PUBACK, success reason
            await_receipt(row.id, row.event_id, now);  // receipts on: not done yet (R2)
            publish_latency_.record(outcome.at_boot_us - flight->published_boot_us);
            if (auto recorded = publish::recorded_uptime_ms(row.envelope, clock_.boot_id())) {
                // The envelope keeps whole milliseconds (the recording fell
                // somewhere in that millisecond): its middle is the unbiased
                // guess, within +-0.5 ms.
                commit_latency_.record(
                    std::max<int64_t>(0, outcome.at_boot_us - (*recorded * 1000 + 500)));
            }
            break;
        }
        case publish::PublishOutcome::Kind::kRefused:
            on_refused(std::move(*flight), outcome.reason, now);
            break;
        case publish::PublishOutcome::Kind::kLost:
            // P3: no verdict, no attempt; publish it again in order.
            if (flight->retry) {
                window_.retry(*flight, now);
            } else {
                window_.released(*flight);
                rewind_to(row.id);
            }
            break;
    }
    window_.check_invariants();
}

void publish::PublisherImpl::on_refused(publish::Flight flight, const std::string& reason, int64_t now) {
    live_.refused++;
    auto dead = store::record_failure(core_, flight.row.id, reason, epoch_, options_.max_attempts);
    if (!dead && dead.status().code() == StatusCode::kFenced) {
        drop_lease(dead.status().to_string(), now);
        return;
    }
    if (dead && *dead) {
        live_.dead++;
        report_dead(flight.row, reason);
        rewind_to(window_.released(flight));  // may lift its device's block
        return;
    }
    if (dead) {
        flight.row.attempts++;
    } else {
        note_store_error(dead.status(), now);  // not recorded; the row still waits its turn
    }
    const int64_t due = now + retry_backoff_.delay(flight.row.attempts).count();
    window_.retry(flight, due);
}

void publish::PublisherImpl::report_dead(const store::OutboxRow& row, const std::string& reason) {
    DeadEvent event;
    event.event_id = row.event_id;
    event.device_id = row.device_id;
    event.seq = row.seq;
    event.reason = reason;
    event.attempts = row.attempts + 1;  // the failure that just made it DEAD
    report_dead(event);
}

void publish::PublisherImpl::report_dead(const DeadEvent& event) {
    if (!options_.on_dead) return;
    try {
        options_.on_dead(event);
    } catch (const std::exception& error) {
        live_.last_error = "the on_dead callback threw: " + std::string(error.what());
    } catch (...) {
        live_.last_error = "the on_dead callback threw";
    }
}

void publish::PublisherImpl::on_marks(const publish::MarkReport& report, int64_t now) {
    for (int64_t id : report.ids) window_.marked(id);
    if (report.status) {
        live_.sent += report.ids.size();
        return;
    }
    if (report.status.code() == StatusCode::kFenced) {
        drop_lease(report.status.to_string(), now);
        return;
    }
    // Not marked: still PENDING in the database, published again later.
    for (int64_t id : report.ids) rewind_to(id);
    note_store_error(report.status, now);
}

void publish::PublisherImpl::rewind_to(int64_t id) {
    if (id <= 0 || id - 1 >= cursor_) return;
    cursor_ = id - 1;
    ready_.clear();
    more_ = true;
}

void publish::PublisherImpl::probe_backlog(int64_t now) {
    // The store keeps these figures as it changes: no scan (outbox_summary.h).
    auto stats = store_.stats();
    if (!stats) {
        note_store_error(stats.status(), now);
        return;
    }
    live_.backlog = stats->pending;
    live_.oldest_pending_age_ms = stats->oldest_pending_age_ms;
    oldest_pending_id_ = stats->oldest_pending_id;
    track_unconfirmed(now, stats->sent - stats->confirmed);  // receipts
}

void publish::PublisherImpl::note_store_error(const Status& status, int64_t) {
    live_.last_error = status.to_string();
}

}  // namespace outpost
