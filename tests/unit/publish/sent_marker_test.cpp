// SENT marks: batched into few transactions off the publisher thread, each
// carrying the lease epoch; a stale epoch's marks are refused and change
// nothing. Receipts queued meanwhile are confirmed together, after the
// marks. Against a real store.
#include "publish/sent_marker.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "eventually.h"
#include "publish/inbox.h"
#include "raw_sqlite.h"
#include "store/outbox.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace std::chrono_literals;
using outpost::StatusCode;
using outpost::publish::Inbox;
using outpost::publish::ConfirmReport;
using outpost::publish::Mail;
using outpost::publish::MarkReport;
using outpost::publish::SentMarker;
using namespace outpost::testing;

namespace {

class MarkerRig final {
  public:
    MarkerRig() : store_(open_store(dir_.file("outbox.db"), test_options())) {}

    // Records `count` alarms; returns their outbox ids (1, 2, ... here).
    std::vector<int64_t> record(int count) {
        std::vector<int64_t> ids;
        for (int i = 0; i < count; ++i) {
            REQUIRE_OK(store_->record_alarm(sample_alarm("pump-" + std::to_string(i))));
            ids.push_back(static_cast<int64_t>(ids.size()) + 1);
        }
        return ids;
    }
    int64_t new_epoch(const std::string& holder) {
        auto epoch = outpost::store::acquire_epoch(core(), holder);
        REQUIRE_OK(epoch);
        return *epoch;
    }
    int64_t count_in_state(int state) {
        RawSqlite db(dir_.file("outbox.db"), SQLITE_OPEN_READONLY);
        return db.integer("SELECT count(*) FROM outbox WHERE state = " + std::to_string(state));
    }
    outpost::store::StoreCore& core() { return outpost::store::core_of(*store_); }
    outpost::Store& store() { return *store_; }
    // The event ids of outbox rows 1..count, in id order.
    std::vector<std::string> event_ids(int count) {
        RawSqlite db(dir_.file("outbox.db"), SQLITE_OPEN_READONLY);
        std::vector<std::string> ids;
        for (int id = 1; id <= count; ++id) {
            ids.push_back(db.text("SELECT event_id FROM outbox WHERE id = " + std::to_string(id)));
        }
        return ids;
    }
    int64_t count_confirmed() {
        RawSqlite db(dir_.file("outbox.db"), SQLITE_OPEN_READONLY);
        return db.integer("SELECT count(*) FROM outbox WHERE confirmed IS NOT NULL");
    }

    // The next batch of reports, waiting up to 20 s for the first.
    std::vector<MarkReport> reports() {
        std::vector<MarkReport> taken;
        const auto deadline = std::chrono::steady_clock::now() + 20s;
        while (taken.empty() && std::chrono::steady_clock::now() < deadline) {
            Mail mail = inbox.wait(1s);
            taken = std::move(mail.marks);
        }
        return taken;
    }

    Inbox inbox;

  private:
    TempDir dir_;
    std::unique_ptr<outpost::Store> store_;
};

constexpr int kSentState = static_cast<int>(outpost::store::OutboxState::kSent);
constexpr int kPendingState = static_cast<int>(outpost::store::OutboxState::kPending);

}  // namespace

TEST_CASE("a full batch is committed at once, in one transaction") {
    MarkerRig rig;
    const auto ids = rig.record(5);
    const int64_t epoch = rig.new_epoch("test");
    SentMarker marker(rig.core(), rig.inbox, epoch, /*batch=*/5, /*delay=*/std::chrono::hours(1));
    for (int64_t id : ids) marker.add(id);
    // The delay is an hour: only the batch size can have released it.
    const auto reports = rig.reports();
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].status.is_ok());
    CHECK(reports[0].ids == ids);
    CHECK(rig.count_in_state(kSentState) == 5);
}

TEST_CASE("fewer ids than a batch wait for the delay, or for finish()") {
    MarkerRig rig;
    const auto ids = rig.record(3);
    const int64_t epoch = rig.new_epoch("test");
    SECTION("the delay") {
        SentMarker marker(rig.core(), rig.inbox, epoch, 100, 20ms);
        marker.add(ids[0]);
        marker.add(ids[1]);
        const auto reports = rig.reports();
        REQUIRE(reports.size() == 1);
        CHECK(reports[0].ids == std::vector<int64_t>{ids[0], ids[1]});
        CHECK(rig.count_in_state(kSentState) == 2);
    }
    SECTION("finish") {
        SentMarker marker(rig.core(), rig.inbox, epoch, 100, std::chrono::hours(1));
        marker.add(ids[0]);
        marker.add(ids[2]);
        CHECK(rig.count_in_state(kSentState) == 0);  // waiting for more
        marker.finish();
        Mail mail = rig.inbox.wait(0ms);
        REQUIRE(mail.marks.size() == 1);
        CHECK(mail.marks[0].status.is_ok());
        CHECK(mail.marks[0].ids == std::vector<int64_t>{ids[0], ids[2]});
        CHECK(rig.count_in_state(kSentState) == 2);
        marker.finish();  // idempotent
    }
}

TEST_CASE("a stale epoch's marks are refused and change nothing") {
    MarkerRig rig;
    const auto ids = rig.record(2);
    const int64_t stale = rig.new_epoch("first holder");
    const int64_t current = rig.new_epoch("second holder");
    REQUIRE(current == stale + 1);
    {
        SentMarker marker(rig.core(), rig.inbox, stale, 1, 1ms);
        marker.add(ids[0]);
        const auto reports = rig.reports();
        REQUIRE(reports.size() == 1);
        CHECK(reports[0].status.code() == StatusCode::kFenced);
        CHECK(reports[0].ids == std::vector<int64_t>{ids[0]});
    }
    CHECK(rig.count_in_state(kSentState) == 0);
    CHECK(rig.count_in_state(kPendingState) == 2);

    SentMarker marker(rig.core(), rig.inbox, current, 1, 1ms);
    marker.add(ids[0]);
    const auto reports = rig.reports();
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].status.is_ok());
    CHECK(rig.count_in_state(kSentState) == 1);
}

TEST_CASE("receipts queued together are confirmed in one transaction, after the marks") {
    MarkerRig rig;
    const auto ids = rig.record(6);
    const auto events = rig.event_ids(6);
    const int64_t epoch = rig.new_epoch("test");
    REQUIRE_OK(outpost::store::mark_sent(rig.core(), {ids[0], ids[1], ids[2], ids[3]}, epoch));
    const uint64_t commits_before = rig.store().stats()->commits;
    {
        // The pending mark holds the thread for an hour: everything below
        // is queued when finish() releases it.
        SentMarker marker(rig.core(), rig.inbox, epoch, 100, std::chrono::hours(1));
        marker.add(ids[4]);
        marker.add_receipt({events[0], events[1]});
        marker.add_receipt({"018f0000-0000-7000-8000-00000000abcd", "not an event id"});
        marker.add_receipt({events[2], events[0], events[4], events[5]}, {ids[2], 0, 0, 0});
        marker.finish();
    }
    // One transaction for the mark, one for the three receipts.
    CHECK(rig.store().stats()->commits == commits_before + 2);
    Mail mail = rig.inbox.wait(0ms);
    REQUIRE(mail.marks.size() == 1);
    CHECK(mail.marks[0].status.is_ok());
    REQUIRE(mail.confirms.size() == 1);
    const ConfirmReport& report = mail.confirms[0];
    CHECK(report.status.is_ok());
    // events[4] was marked just before: the receipt after it confirms it.
    CHECK(report.confirmed == std::vector<std::string>{events[0], events[1], events[2], events[4]});
    CHECK(report.settled == std::vector<std::string>{events[0]});
    // Two unknown ids, events[0] again, events[5] still PENDING.
    CHECK(report.ignored == 4);
    CHECK(rig.count_confirmed() == 4);
    CHECK(rig.count_in_state(kPendingState) == 1);
}
