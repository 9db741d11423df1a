// The delivery check is the referee past the gateway (outpost-torture --mode
// e2e): it must see an acknowledged alarm that never became SENT or never
// reached the observer, an event the database does not hold, and (receipts
// on) an acknowledged alarm no receipt confirmed, and must count repeats
// without calling them failures.
#include "proof/delivery_check.h"

#include <catch2/catch.hpp>

#include "proof/evidence.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "temp_dir.h"

namespace outpost::faults {
namespace {

using outpost::testing::RawSqlite;
using outpost::testing::TempDir;

// Three acknowledged alarms, all rows SENT (as a drained gateway leaves them).
struct Drained {
    TempDir dir;
    std::string db = dir.file("outbox.db");
    EvidenceLog log;
    std::map<std::string, int> seen;  // each alarm once at the observer

    Drained() {
        auto store = outpost::testing::open_store(db, outpost::testing::test_options());
        EvidenceWriter evidence(&log);
        for (int i = 0; i < 3; ++i) {
            const std::string token = "t" + std::to_string(i);
            evidence.started(token, "");
            auto recorded = store->record_alarm(outpost::testing::sample_alarm("pump-1"));
            REQUIRE_OK(recorded);
            evidence.acknowledged(token, *recorded);
            seen[recorded->event_id] = 1;
        }
        REQUIRE_OK(store->close());
        RawSqlite(db).exec("UPDATE outbox SET state = 1");
    }
};

}  // namespace

TEST_CASE("a drained gateway whose alarms all arrived passes the delivery check") {
    Drained drained;
    DeliveryReport report = check_delivery(drained.db, drained.log, "observer", drained.seen, true);
    INFO(report.summary());
    CHECK(report.ok());
    CHECK(report.acknowledged == 3);
    CHECK(report.seen == 3);
}

TEST_CASE("an acknowledged alarm that never arrived is lost") {
    Drained drained;
    drained.seen.erase(drained.seen.begin());
    DeliveryReport report = check_delivery(drained.db, drained.log, "observer", drained.seen, true);
    CHECK(report.not_seen == 1);
    CHECK(report.lost() == 1);
    CHECK_FALSE(report.ok());
}

TEST_CASE("an acknowledged alarm still PENDING is lost when SENT is required, not otherwise") {
    Drained drained;
    RawSqlite(drained.db).exec("UPDATE outbox SET state = 0 WHERE id = 1");
    CHECK(check_delivery(drained.db, drained.log, "observer", drained.seen, true).not_sent == 1);
    CHECK(check_delivery(drained.db, drained.log, "observer", drained.seen, false).ok());
}

TEST_CASE("an event the observer saw that the database does not hold is a phantom") {
    Drained drained;
    drained.seen["00000000-0000-7000-8000-000000000000"] = 1;
    DeliveryReport report = check_delivery(drained.db, drained.log, "observer", drained.seen, true);
    CHECK(report.phantom == 1);
    CHECK_FALSE(report.ok());
}

TEST_CASE("repeated arrivals are counted as duplicates, not failures") {
    Drained drained;
    for (auto& [id, count] : drained.seen) count = 3;
    DeliveryReport report = check_delivery(drained.db, drained.log, "observer", drained.seen, true);
    CHECK(report.ok());
    CHECK(report.duplicates == 6);
}

TEST_CASE("with receipts, acknowledged alarms all confirmed pass the confirmation check") {
    Drained drained;
    RawSqlite(drained.db).exec("UPDATE outbox SET confirmed = 1");
    DeliveryReport report = check_confirmed(drained.db, drained.log);
    INFO(report.summary());
    CHECK(report.ok());
    CHECK(report.acknowledged == 3);
}

TEST_CASE("with receipts, an acknowledged alarm SENT but never confirmed is lost") {
    Drained drained;
    RawSqlite(drained.db).exec("UPDATE outbox SET confirmed = 1 WHERE id <> 2");
    DeliveryReport report = check_confirmed(drained.db, drained.log);
    CHECK(report.not_confirmed == 1);
    CHECK(report.lost() == 1);
    CHECK_FALSE(report.ok());
}

}  // namespace outpost::faults
