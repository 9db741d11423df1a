// The byte quota and the retention purge.
#include <catch2/catch.hpp>

#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

// Fills the store until it refuses; returns how many alarms were accepted.
int fill_until_full(Store& store, Status* refusal) {
    for (int i = 0; i < 100000; ++i) {
        Alarm alarm = sample_alarm("dev-" + std::to_string(i % 5));
        alarm.text = std::string(300, 'q');
        auto result = store.record_alarm(alarm);
        if (!result.is_ok()) {
            *refusal = result.status();
            return i;
        }
    }
    return -1;
}

}  // namespace

TEST_CASE("a full store refuses new alarms with StoreFull and never evicts pending ones") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    StoreOptions options = test_options();
    options.quota_bytes = 256 * 1024;
    auto store = open_store(path, options);
    Status refusal;
    int accepted = fill_until_full(*store, &refusal);
    REQUIRE(accepted > 50);
    CHECK(refusal.code() == StatusCode::kStoreFull);
    CHECK_THAT(refusal.message(), Catch::Contains("quota"));

    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox WHERE state = 0") == accepted);
    CHECK(db.integer("SELECT count(*) FROM alarm_record") == accepted);
    CHECK(db.text("PRAGMA integrity_check") == "ok");
}

TEST_CASE("rows another connection wrote count against the quota at once") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    StoreOptions options = test_options();
    options.quota_bytes = 256 * 1024;
    auto first = open_store(path, options);
    REQUIRE_OK(first->record_alarm(sample_alarm()));  // the first store has counted its pages
    {
        auto second = open_store(path, options);
        Status refusal;
        REQUIRE(fill_until_full(*second, &refusal) > 50);
        REQUIRE(refusal.code() == StatusCode::kStoreFull);
    }
    Alarm same_size = sample_alarm("dev-0");  // as large as the one refused
    same_size.text = std::string(300, 'q');
    auto result = first->record_alarm(same_size);
    REQUIRE_FALSE(result.is_ok());
    CHECK(result.status().code() == StatusCode::kStoreFull);
}

TEST_CASE("when the quota is reached SENT rows are purged oldest first to make room") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    StoreOptions options = test_options();
    options.quota_bytes = 256 * 1024;
    options.purge_batch_rows = 16;
    auto store = open_store(path, options);
    Status refusal;
    int accepted = fill_until_full(*store, &refusal);
    REQUIRE(refusal.code() == StatusCode::kStoreFull);

    RawSqlite db(path);
    // The first half was delivered (as the publisher would mark it).
    db.exec("UPDATE outbox SET state = 1, sent_boot_id = 'b', sent_uptime_ms = 0 WHERE id <= " +
            std::to_string(accepted / 2));
    int64_t pending_before = db.integer("SELECT count(*) FROM outbox WHERE state = 0");
    int64_t oldest_sent_before = db.integer("SELECT min(id) FROM outbox WHERE state = 1");

    for (int i = 0; i < 20; ++i) {
        auto result = store->record_alarm(sample_alarm());
        REQUIRE_OK(result);
    }
    CHECK(db.integer("SELECT count(*) FROM outbox WHERE state = 0") == pending_before + 20);
    CHECK(db.integer("SELECT min(id) FROM outbox WHERE state = 1") > oldest_sent_before);
    CHECK(db.integer("SELECT count(*) FROM alarm_record a LEFT JOIN outbox o USING (id) "
                     "WHERE o.id IS NULL") == 0);
    CHECK(store->stats()->purged_rows > 0);
}

TEST_CASE("SENT rows are purged only after the retention period, counted on the boot clock") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    ManualClock clock;
    StoreOptions options = test_options(&clock);
    options.sent_retention = std::chrono::minutes(10);
    auto store = open_store(path, options);
    for (int i = 0; i < 5; ++i) REQUIRE_OK(store->record_alarm(sample_alarm()));
    RawSqlite db(path);
    db.exec("UPDATE outbox SET state = 1, sent_boot_id = '" + clock.boot_id() +
            "', sent_uptime_ms = " + std::to_string(clock.boot_ms()));

    clock.advance(9 * 60 * 1000);
    clock.jump_wall(30LL * 24 * 3600 * 1000);  // NTP arrives: the wall clock changes nothing
    CHECK(*store->purge_expired() == 0);

    clock.advance(2 * 60 * 1000);
    // All but the newest row: its rowid must never be reused.
    CHECK(*store->purge_expired() == 4);
    CHECK(db.integer("SELECT count(*) FROM outbox") == 1);
    CHECK(db.integer("SELECT count(*) FROM alarm_record") == 1);
}

TEST_CASE("rows sent in an earlier boot are kept for a full retention period of this boot") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    ManualClock clock;
    StoreOptions options = test_options(&clock);
    options.sent_retention = std::chrono::minutes(10);
    for (int i = 0; i < 3; ++i) REQUIRE_OK(open_store(path, options)->record_alarm(sample_alarm()));
    {
        RawSqlite db(path);
        db.exec(
            "UPDATE outbox SET state = 1, sent_boot_id = 'old-boot', sent_uptime_ms = 999999999");
    }
    clock.reboot("new-boot");
    auto store = open_store(path, options);
    clock.advance(5 * 60 * 1000);
    CHECK(*store->purge_expired() == 0);
    clock.advance(6 * 60 * 1000);
    CHECK(*store->purge_expired() == 2);
}

TEST_CASE("sequence numbers never restart after the rows that held them are purged") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    ManualClock clock;
    StoreOptions options = test_options(&clock);
    options.sent_retention = std::chrono::milliseconds(1);
    {
        auto store = open_store(path, options);
        for (int i = 0; i < 3; ++i) REQUIRE_OK(store->record_alarm(sample_alarm("a")));
        REQUIRE_OK(store->record_alarm(sample_alarm("b")));  // newest row, never purged
        RawSqlite db(path);
        db.exec("UPDATE outbox SET state = 1, sent_boot_id = '" + clock.boot_id() +
                "', sent_uptime_ms = 0");
        clock.advance(10);
        CHECK(*store->purge_expired() == 3);
        CHECK(db.integer("SELECT count(*) FROM outbox WHERE device_id = 'a'") == 0);
    }
    auto store = open_store(path, options);
    CHECK(store->record_alarm(sample_alarm("a"))->seq == 4);
}
