// Injected I/O errors at every kind of VFS call, once (transient) and from
// then on (persistent): the store answers with an error value, never
// crashes, never corrupts, loses nothing it acknowledged, and works again
// as soon as the device does.
#include <catch2/catch.hpp>

#include "proof/checker.h"
#include "proof/evidence.h"
#include "proof/io_error_vfs.h"
#include "proof/recorded_call.h"
#include "store_fixture.h"
#include "temp_dir.h"

namespace outpost::faults {
namespace {

using outpost::testing::TempDir;

constexpr int kCallsAfterFault = 12;

IoErrorVfs& error_vfs() {
    static std::unique_ptr<IoErrorVfs> vfs = [] {
        std::string error;
        auto created = IoErrorVfs::create("io-error-test", "", &error);
        if (!created) FAIL(error);
        return created;
    }();
    return *vfs;
}

StoreOptions options_over_errors() {
    StoreOptions options = outpost::testing::test_options();
    options.vfs_name = error_vfs().name();
    options.sent_retention = std::chrono::milliseconds(0);
    return options;
}

// Records one alarm named `token`, with evidence; odd-length tokens carry a key.
Status record(Store& store, EvidenceLog& log, const std::string& token) {
    Alarm alarm = outpost::testing::sample_alarm("pump-1", token.size() % 2 ? "key-" + token : "");
    alarm.text = token;
    return record_with_evidence(store, alarm, EvidenceWriter(&log));
}

bool expected_error(const Status& status, const IoFault& fault) {
    switch (status.code()) {
        case StatusCode::kIoError:
        case StatusCode::kOutcomeUnknown:
            return true;
        case StatusCode::kDiskFull:
            return fault.disk_full;
        default:
            return false;
    }
}

// One scenario: a store with some alarms, the fault, calls through it, the
// repair, and the checks.
void run_scenario(const IoFault& fault) {
    TempDir dir;
    const std::string db = dir.file("outbox.db");
    EvidenceLog log;
    error_vfs().clear();
    auto opened = Store::open(db, options_over_errors());
    REQUIRE_OK(opened);
    std::unique_ptr<Store> store = std::move(*opened);
    for (int i = 0; i < 5; ++i) REQUIRE_OK(record(*store, log, "before-" + std::to_string(i)));

    error_vfs().inject(fault);
    int failures = 0;
    int last_failure = -1;
    for (int i = 0; i < kCallsAfterFault; ++i) {
        Status status = record(*store, log, "during-" + std::to_string(i));
        if (i == kCallsAfterFault / 2) store->purge_expired();  // reads and deletes too
        if (status) continue;
        INFO("call " << i << ": " << status.to_string());
        CHECK(expected_error(status, fault));
        CHECK(!status.message().empty());
        ++failures;
        last_failure = i;
    }
    if (!fault.persistent) {
        // A transient fault costs at most the calls that met it.
        CHECK(failures <= 2);
        CHECK(last_failure < kCallsAfterFault - 1);
    }
    error_vfs().clear();
    // Repaired: the store must work again at once (it reopens if it closed).
    Status after = record(*store, log, "after-repair");
    INFO(after.to_string());
    CHECK(after.is_ok());
    for (const std::string& token : log.open_calls()) {
        // The application's retry after an unknown outcome.
        record(*store, log, token);
    }
    store.reset();

    CheckReport report = check_database(db, log);
    INFO(report.summary());
    for (const std::string& problem : report.problems) INFO(problem);
    CHECK(report.ok());
    auto reopened = Store::open(db, outpost::testing::test_options());
    CHECK(reopened.is_ok());
}

}  // namespace

TEST_CASE("a transient I/O error at any VFS call costs at most the calls that met it") {
    for (IoOp op : kAllIoOps) {
        for (uint64_t nth : {1, 2, 3, 5, 8}) {
            DYNAMIC_SECTION(io_op_name(op) << " #" << nth) {
                IoFault fault;
                fault.op = op;
                fault.nth = nth;
                run_scenario(fault);
            }
        }
    }
}

TEST_CASE("a persistent I/O error at any VFS call fails cleanly until repaired") {
    for (IoOp op : kAllIoOps) {
        for (uint64_t nth : {1, 3}) {
            DYNAMIC_SECTION(io_op_name(op) << " from #" << nth) {
                IoFault fault;
                fault.op = op;
                fault.nth = nth;
                fault.persistent = true;
                run_scenario(fault);
            }
        }
    }
}

TEST_CASE("a write refused with SQLITE_FULL in the WAL or the database is a clean disk_full") {
    for (const char* suffix : {"-wal", ".db"}) {
        for (bool persistent : {false, true}) {
            DYNAMIC_SECTION(suffix << (persistent ? " persistent" : " transient")) {
                IoFault fault;
                fault.op = IoOp::kWrite;
                fault.disk_full = true;
                fault.persistent = persistent;
                fault.path_suffix = suffix;
                run_scenario(fault);
            }
        }
    }
}

TEST_CASE("injected faults count only the chosen call on the chosen files") {
    TempDir dir;
    error_vfs().clear();
    const uint64_t before = error_vfs().failures();
    {
        auto opened = Store::open(dir.file("outbox.db"), options_over_errors());
        REQUIRE_OK(opened);
        IoFault fault;
        fault.op = IoOp::kSync;
        fault.path_suffix = "-nothing-matches";
        fault.persistent = true;
        error_vfs().inject(fault);
        REQUIRE_OK((*opened)->record_alarm(outpost::testing::sample_alarm()));
        fault.path_suffix = "-wal";
        error_vfs().inject(fault);
        CHECK_FALSE((*opened)->record_alarm(outpost::testing::sample_alarm()).is_ok());
        error_vfs().clear();
    }
    CHECK(error_vfs().failures() > before);
}

}  // namespace outpost::faults
