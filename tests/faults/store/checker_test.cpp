// The checker is the referee of every fault campaign: it must see each kind
// of damage it claims to detect, and must not cry wolf on legal states.
#include "proof/checker.h"

#include <catch2/catch.hpp>

#include "proof/evidence.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "temp_dir.h"

namespace outpost::faults {
namespace {

using outpost::testing::RawSqlite;
using outpost::testing::TempDir;

Alarm alarm_with_token(const std::string& token) {
    Alarm alarm = outpost::testing::sample_alarm("pump-1");
    alarm.text = token;
    return alarm;
}

// A store with `count` acknowledged alarms (tokens t0, t1, ...), closed.
struct Recorded {
    TempDir dir;
    std::string db = dir.file("outbox.db");
    EvidenceLog log;
    std::vector<std::string> event_ids;

    explicit Recorded(int count) {
        auto store = outpost::testing::open_store(db, outpost::testing::test_options());
        EvidenceWriter evidence(&log);
        for (int i = 0; i < count; ++i) {
            const std::string token = "t" + std::to_string(i);
            evidence.started(token, "");
            auto recorded = store->record_alarm(alarm_with_token(token));
            REQUIRE_OK(recorded);
            evidence.acknowledged(token, *recorded);
            event_ids.push_back(recorded->event_id);
        }
    }
    // One more acknowledged alarm, its call started now.
    void record(const std::string& token) {
        auto store = outpost::testing::open_store(db, outpost::testing::test_options());
        EvidenceWriter evidence(&log);
        evidence.started(token, "");
        auto recorded = store->record_alarm(alarm_with_token(token));
        REQUIRE_OK(recorded);
        evidence.acknowledged(token, *recorded);
        event_ids.push_back(recorded->event_id);
    }
    // Writes a row for `token` but tells the evidence that the call ended
    // with `code` (what a lying store would do).
    void record_but_report(const std::string& token, StatusCode code) {
        auto store = outpost::testing::open_store(db, outpost::testing::test_options());
        EvidenceWriter evidence(&log);
        evidence.started(token, "");
        REQUIRE_OK(store->record_alarm(alarm_with_token(token)));
        evidence.failed(token, Status::error(code, "reported"));
    }
};

}  // namespace

TEST_CASE("a sound database with all acknowledged alarms passes") {
    Recorded recorded(5);
    CheckReport report = check_database(recorded.db, recorded.log);
    INFO(report.summary());
    CHECK(report.ok());
    CHECK(report.acknowledged == 5);
    CHECK(report.rows == 5);
    CHECK(report.problems.empty());
}

TEST_CASE("a missing acknowledged alarm is counted as lost") {
    Recorded recorded(5);
    RawSqlite(recorded.db)
        .exec("DELETE FROM outbox WHERE id = 3; DELETE FROM alarm_record WHERE id = 3");
    CheckReport report = check_database(recorded.db, recorded.log);
    CHECK(report.lost == 1);
    CHECK(!report.ok());
}

TEST_CASE("an acknowledged alarm may vanish only if it was marked SENT, with both rows") {
    Recorded recorded(3);
    RawSqlite(recorded.db)
        .exec("DELETE FROM outbox WHERE id = 2; DELETE FROM alarm_record WHERE id = 2");
    EvidenceWriter(&recorded.log).marking({recorded.event_ids[1]});
    CheckReport report = check_database(recorded.db, recorded.log);
    INFO(report.summary());
    CHECK(report.ok());
    CHECK(report.purged == 1);
}

TEST_CASE("an event without its alarm row, or the reverse, is an integrity failure") {
    Recorded recorded(3);
    SECTION("alarm row missing") {
        RawSqlite(recorded.db).exec("DELETE FROM alarm_record WHERE id = 2");
    }
    SECTION("event missing") {
        RawSqlite(recorded.db).exec("DELETE FROM outbox WHERE id = 2");
    }
    CheckReport report = check_database(recorded.db, recorded.log);
    CHECK(report.integrity_failures >= 1);
}

TEST_CASE("a row of a call told 'nothing written' is a phantom; of a call in doubt it is not") {
    Recorded recorded(2);
    SECTION("io_error promises nothing was written") {
        recorded.record_but_report("liar", StatusCode::kIoError);
        CheckReport report = check_database(recorded.db, recorded.log);
        CHECK(report.phantom == 1);
    }
    SECTION("disk_full promises nothing was written") {
        recorded.record_but_report("liar", StatusCode::kDiskFull);
        CHECK(check_database(recorded.db, recorded.log).phantom == 1);
    }
    SECTION("outcome_unknown may have written") {
        recorded.record_but_report("doubt", StatusCode::kOutcomeUnknown);
        CheckReport report = check_database(recorded.db, recorded.log);
        CHECK(report.ok());
        CHECK(report.in_doubt_present == 1);
    }
    SECTION("a call that never returned (killed in flight) may have written") {
        auto store = outpost::testing::open_store(recorded.db, outpost::testing::test_options());
        EvidenceWriter(&recorded.log).started("in-flight", "");
        REQUIRE_OK(store->record_alarm(alarm_with_token("in-flight")));
        store.reset();
        CheckReport report = check_database(recorded.db, recorded.log);
        CHECK(report.ok());
        CHECK(report.in_doubt_present == 1);
    }
    SECTION("a row of a call never made") {
        auto store = outpost::testing::open_store(recorded.db, outpost::testing::test_options());
        REQUIRE_OK(store->record_alarm(alarm_with_token("nobody")));
        store.reset();
        CHECK(check_database(recorded.db, recorded.log).phantom == 1);
    }
}

TEST_CASE("a call retried without a key after an unknown outcome is a duplicate, not a failure") {
    Recorded recorded(1);
    recorded.record_but_report("twice", StatusCode::kOutcomeUnknown);
    auto store = outpost::testing::open_store(recorded.db, outpost::testing::test_options());
    EvidenceWriter evidence(&recorded.log);
    evidence.started("twice", "");
    auto again = store->record_alarm(alarm_with_token("twice"));
    REQUIRE_OK(again);
    evidence.acknowledged("twice", *again);
    store.reset();
    CheckReport report = check_database(recorded.db, recorded.log);
    INFO(report.summary());
    CHECK(report.ok());
    CHECK(report.duplicates == 1);
}

TEST_CASE("two events of one device with the same seq are an integrity failure") {
    Recorded recorded(3);
    RawSqlite(recorded.db).exec("UPDATE outbox SET seq = 1 WHERE id = 2");
    CheckReport report = check_database(recorded.db, recorded.log);
    CHECK(report.integrity_failures >= 1);
}

TEST_CASE("a SENT mark may be undone by a power cut only until a later alarm is acknowledged") {
    Recorded recorded(2);
    // The row stays PENDING: as if the cut came before any synced commit
    // after the (lazy) mark.
    EvidenceWriter(&recorded.log).marked({recorded.event_ids[0]});
    CheckReport report = check_database(recorded.db, recorded.log);
    INFO(report.summary());
    CHECK(report.ok());
    CHECK(report.marks_undone == 1);
    // An alarm whose call started after the mark returned committed after it
    // with a sync, which made the mark durable: undoing it is now a failure.
    recorded.record("t-after-mark");
    report = check_database(recorded.db, recorded.log);
    CHECK(report.integrity_failures == 1);
    CHECK(report.marks_undone == 0);
    RawSqlite(recorded.db).exec("UPDATE outbox SET state = 1 WHERE id = 1");
    CHECK(check_database(recorded.db, recorded.log).ok());
}

TEST_CASE("a SENT mark is never undone into a DEAD row") {
    Recorded recorded(1);
    EvidenceWriter(&recorded.log).marked({recorded.event_ids[0]});
    RawSqlite(recorded.db).exec("UPDATE outbox SET state = 2 WHERE id = 1");
    CHECK(check_database(recorded.db, recorded.log).integrity_failures == 1);
}

TEST_CASE("a damaged file fails integrity, an empty one with no acknowledgement passes") {
    TempDir dir;
    EvidenceLog log;
    SECTION("garbage") {
        FILE* file = std::fopen(dir.file("outbox.db").c_str(), "w");
        std::fputs("this is not a database, not even close to one.........", file);
        std::fclose(file);
        CHECK(check_database(dir.file("outbox.db"), log).integrity_failures >= 1);
    }
    SECTION("a cut before the schema was created") {
        RawSqlite(dir.file("outbox.db"), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            .exec("PRAGMA journal_mode=WAL");
        CHECK(check_database(dir.file("outbox.db"), log).ok());
    }
}

TEST_CASE("evidence lines survive the pipe and malformed ones are refused") {
    EvidenceLog log;
    std::string error;
    CHECK(log.apply("S a k key-a", &error));
    CHECK(log.apply("A a 0190b6a0-0000-7000-8000-000000000001 dev 1 0", &error));
    CHECK(log.apply("S b -", &error));
    CHECK(log.apply("F b outcome_unknown", &error));
    CHECK(log.open_calls() == std::vector<std::string>{"b"});
    CHECK(log.calls().at("a").key == "key-a");
    CHECK_FALSE(log.apply("A nobody x y 1 0", &error));
    CHECK_FALSE(log.apply("Z", &error));
    CHECK(outcome_of(Status::error(StatusCode::kIoError, "x")) == CallOutcome::kNotWritten);
    CHECK(outcome_of(Status::error(StatusCode::kOutcomeUnknown, "x")) == CallOutcome::kUnknown);
    CHECK(outcome_of(Status::error(StatusCode::kCorruption, "x")) == CallOutcome::kUnknown);
}

}  // namespace outpost::faults
