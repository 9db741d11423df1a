// Receipts: the publisher's half of the end-to-end loop. The bridge says
// which events RocketMQ stored (common/receipt_contract.h); the publisher
// marks those rows confirmed and publishes again, with the same eventId,
// SENT rows whose receipt did not come in time. A negative receipt (the
// bridge quarantined the event) makes the row DEAD with the bridge's
// reason: it is not published again and holds no place under
// max_unconfirmed (R5); an operator replays it once the cause is fixed.
//
// Design: receipts arrive on the publisher's own connection (clean start,
// subscribed again after every connect), not a persistent session of their
// own. A receipt lost while the gateway is away costs one republish and one
// RocketMQ duplicate, which consumers drop by eventId; a persistent session
// would save that at the price of a second client id, broker-side state per
// gateway and a second connection on the gateway's link. Only the lease
// holder is connected, so only it hears receipts; confirm_events checks the
// epoch like every other publisher write (P1).
//
// Invariants, publisher thread:
//  R1. A row is confirmed only by a receipt naming its eventId on this
//      gateway's own receipt topic, and only from SENT (confirm_events).
//  R2. awaiting_ holds SENT rows (or rows acknowledged and being marked)
//      without a receipt; awaiting_ + window in flight never exceeds
//      max_unconfirmed when a new row starts (room_for_new_rows()).
//  R3. A republish goes out only when the row is still SENT and
//      unconfirmed in the database, and never while a republish of the same
//      row is in flight; it uses the stored envelope (same eventId). It never
//      counts an attempt or changes a row's state.
//  R4. Republish pauses follow common/backoff.h: receipt_timeout after the
//      PUBACK, then doubling up to receipt_timeout_max, on the boot clock.
//  R5. A negative receipt moves a row to DEAD only from SENT without a
//      confirmation, on this gateway's own receipt topic (store::
//      confirm_receipts); the row leaves awaiting_ in the same round its
//      DEAD commit is reported, and is reported to on_dead once.
#include <algorithm>

#include "common/receipt_contract.h"
#include "publish/publisher_impl.h"

namespace outpost {
namespace {

// Republish tags: the high bit keeps them apart from the window's tags.
constexpr uint64_t kRepublishTag = uint64_t{1} << 63;
// How long a subscribe may wait for its SUBACK.
constexpr std::chrono::milliseconds kSubscribeTimeout{2000};
// When the window has no room for a due republish, look again after this.
constexpr int64_t kNoRoomPauseMs = 50;

// The row's last_error for a negative receipt: the bridge's code first, so
// that it reads like a PUBACK reason and can be matched by its prefix.
std::string rejection_reason(const receipt::Rejection& rejection) {
    std::string reason = "rejected by the bridge: " + rejection.code;
    if (!rejection.text.empty()) reason += ": " + rejection.text;
    return reason;
}

}  // namespace

void publish::PublisherImpl::subscribe_receipts(int64_t now) {
    if (!options_.receipts || !connected_) return;
    Status subscribed = link_->subscribe(receipt_topic_, kSubscribeTimeout);
    if (!subscribed) {
        // Receipts are best effort: without them rows are published again
        // after their timeout. Say why, and carry on.
        live_.last_error = "receipts: " + subscribed.to_string();
        if (subscribed.code() == StatusCode::kUnavailable)
            connection_lost(subscribed.message(), now);
    }
}

void publish::PublisherImpl::on_link_message(const publish::LinkEvent& event) {
    if (!options_.receipts || event.topic != receipt_topic_ || !marker_) {
        live_.receipts_malformed++;
        return;
    }
    auto parsed = receipt::parse(event.payload);
    if (const auto* malformed = std::get_if<receipt::Malformed>(&parsed)) {
        // A newer bridge's message is ignored whole (receipt_contract.h, C3).
        (malformed->newer_version ? live_.receipts_newer : live_.receipts_malformed)++;
        live_.last_error = "receipts: " + malformed->reason;
        return;
    }
    receipt::Receipt& receipt = std::get<receipt::Receipt>(parsed);
    // The rows these receipts are awaited for, so that the confirmation
    // finds each by its rowid instead of bisecting the outbox (a hint only:
    // confirm_events still matches the eventId, R1).
    const auto hint = [&](const std::string& event_id) -> int64_t {
        auto found = awaiting_.find(event_id);
        return found == awaiting_.end() ? 0 : found->second.id;
    };
    std::vector<int64_t> row_hints;
    row_hints.reserve(receipt.event_ids.size());
    for (const std::string& event_id : receipt.event_ids) row_hints.push_back(hint(event_id));
    std::vector<store::Rejected> rejected;
    rejected.reserve(receipt.rejected.size());
    for (const receipt::Rejection& rejection : receipt.rejected) {
        rejected.push_back(store::Rejected{rejection.event_id, rejection_reason(rejection),
                                           hint(rejection.event_id)});
    }
    marker_->add_receipt(std::move(receipt.event_ids), std::move(row_hints), std::move(rejected));
}

void publish::PublisherImpl::on_confirms(const publish::ConfirmReport& report, int64_t now) {
    if (!report.status) {
        if (report.status.code() == StatusCode::kFenced) {
            drop_lease(report.status.to_string(), now);
            return;
        }
        note_store_error(report.status, now);  // dropped: republished later (R3)
        return;
    }
    live_.confirmed += report.confirmed.size();
    live_.receipts_ignored += static_cast<uint64_t>(report.ignored);
    for (const std::string& id : report.confirmed) forget_awaiting(id);
    for (const std::string& id : report.settled) forget_awaiting(id);
    for (const DeadEvent& dead : report.dead) {  // R5
        forget_awaiting(dead.event_id);
        live_.dead++;
        live_.rejected++;
        report_dead(dead);
    }
}

void publish::PublisherImpl::forget_awaiting(const std::string& event_id) {
    auto found = awaiting_.find(event_id);
    if (found == awaiting_.end()) return;
    if (found->second.tag != 0) republishing_.erase(found->second.tag);
    awaiting_.erase(found);
}

void publish::PublisherImpl::await_receipt(int64_t id, const std::string& event_id, int64_t now) {
    if (!options_.receipts) return;
    Awaiting& entry = awaiting_[event_id];
    entry.id = id;
    if (entry.since_ms == 0) entry.since_ms = now;
    entry.due_ms = now + receipt_backoff_.delay(entry.republishes + 1).count();
    republish_check_at_ = std::min(republish_check_at_, entry.due_ms);
}

bool publish::PublisherImpl::republish_outcome(const publish::PublishOutcome& outcome, int64_t now) {
    if ((outcome.tag & kRepublishTag) == 0) return false;
    auto flight = republishing_.find(outcome.tag);
    if (flight == republishing_.end()) return true;  // abandoned, or confirmed meanwhile
    const std::string event_id = flight->second;
    republishing_.erase(flight);
    auto found = awaiting_.find(event_id);
    if (found == awaiting_.end()) return true;
    Awaiting& entry = found->second;
    entry.tag = 0;
    // Acked or not, the next look is a backoff away (R4); a refusal counts
    // no attempt (R3): the row was delivered once already.
    entry.due_ms = now + receipt_backoff_.delay(entry.republishes + 1).count();
    republish_check_at_ = std::min(republish_check_at_, entry.due_ms);
    if (outcome.kind == publish::PublishOutcome::Kind::kRefused) {
        live_.last_error = "republish of " + event_id + " refused: " + outcome.reason;
    }
    return true;
}

void publish::PublisherImpl::republish_due(int64_t now) {
    // The set is walked only when something is due (republish_check_at_),
    // not on every round of the loop.
    if (!options_.receipts || !connected_ || stopping_ || now < republish_check_at_) return;
    std::vector<std::string> due;
    republish_check_at_ = kNever;
    for (const auto& [event_id, entry] : awaiting_) {
        if (entry.tag != 0) continue;
        if (entry.due_ms <= now) {
            due.push_back(event_id);
        } else {
            republish_check_at_ = std::min(republish_check_at_, entry.due_ms);
        }
    }
    // Oldest rows first.
    std::sort(due.begin(), due.end(), [&](const std::string& a, const std::string& b) {
        return awaiting_.at(a).id < awaiting_.at(b).id;
    });
    for (const std::string& event_id : due) {
        if (window_.in_flight() + static_cast<int64_t>(republishing_.size()) >=
            window_.capacity()) {
            // No room now: look again shortly (outcomes free room meanwhile).
            republish_check_at_ = std::min(republish_check_at_, now + kNoRoomPauseMs);
            return;
        }
        auto row = store::find_event(*reader_, event_id);
        if (!row && row.status().code() != StatusCode::kNotFound) {
            note_store_error(row.status(), now);
            return;
        }
        // R3: gone (purged), replayed (PENDING again: the window publishes
        // it), DEAD or confirmed meanwhile: nothing left to wait for here.
        if (!row || row->state != store::OutboxState::kSent || row->confirmed) {
            forget_awaiting(event_id);
            continue;
        }
        const uint64_t tag = kRepublishTag | next_republish_tag_++;
        Status status = link_->publish(topic_prefix_ + row->topic_suffix, row->envelope, tag);
        if (!status) {
            if (status.code() == StatusCode::kUnavailable) {
                connection_lost(status.message(), now);
                return;
            }
            live_.last_error = "republish of " + event_id + ": " + status.to_string();
            Awaiting& entry = awaiting_.at(event_id);
            entry.due_ms = now + receipt_backoff_.delay(entry.republishes + 1).count();
            republish_check_at_ = std::min(republish_check_at_, entry.due_ms);
            continue;
        }
        Awaiting& entry = awaiting_.at(event_id);
        entry.tag = tag;
        entry.republishes++;
        republishing_[tag] = event_id;
        live_.published++;
        live_.republished++;
    }
}

void publish::PublisherImpl::abandon_republishes(int64_t now) {
    for (const auto& [tag, event_id] : republishing_) {
        auto found = awaiting_.find(event_id);
        if (found == awaiting_.end()) continue;
        found->second.tag = 0;
        found->second.due_ms = now;  // no verdict: try again once connected
        republish_check_at_ = now;
    }
    republishing_.clear();
}

void publish::PublisherImpl::forget_receipts() {
    awaiting_.clear();
    republishing_.clear();
    pickup_.reset();
    republish_check_at_ = kNever;
}

void publish::PublisherImpl::track_unconfirmed(int64_t now, int64_t unconfirmed_in_store) {
    if (!options_.receipts) return;
    live_.awaiting_receipt = unconfirmed_in_store;
    int64_t oldest = -1;
    for (const auto& [event_id, entry] : awaiting_) {
        oldest = std::max(oldest, now - entry.since_ms);
    }
    live_.oldest_unconfirmed_age_ms = oldest;
    // SENT rows this lease does not know yet (from an earlier lease or run,
    // or from before receipts were switched on): pick them up, oldest
    // first, as fast as room allows (unconfirmed_pickup.h).
    if (unconfirmed_in_store > static_cast<int64_t>(awaiting_.size())) pickup_.begin();
    pick_up_unconfirmed(now);
}

void publish::PublisherImpl::pick_up_unconfirmed(int64_t now) {
    if (!options_.receipts || !reader_ || !pickup_.more()) return;
    auto rows = pickup_.look(*reader_, unconfirmed_room());
    if (!rows) {
        pickup_.reset();  // the next probe begins again: no busy loop on a failing read
        note_store_error(rows.status(), now);
        return;
    }
    for (const store::UnconfirmedRow& row : *rows) {
        if (awaiting_.count(row.event_id) != 0 || window_.busy(row.id)) continue;
        await_receipt(row.id, row.event_id, now);
    }
}

int64_t publish::PublisherImpl::unconfirmed_room() const {
    return options_.max_unconfirmed - static_cast<int64_t>(awaiting_.size()) -
           window_.in_flight();  // R2
}

bool publish::PublisherImpl::room_for_new_rows() const {
    const int64_t flights = window_.in_flight() + static_cast<int64_t>(republishing_.size());
    if (flights >= window_.capacity()) return false;
    if (!options_.receipts) return true;
    return static_cast<int64_t>(awaiting_.size()) + window_.in_flight() <
           options_.max_unconfirmed;  // R2
}

std::optional<int64_t> publish::PublisherImpl::next_republish() const {
    if (!options_.receipts || !connected_ || republish_check_at_ == kNever) return std::nullopt;
    return republish_check_at_;
}

}  // namespace outpost
