// Injected I/O errors at every kind of VFS call, once (transient) and from
// then on (persistent): the store answers with an error value, never
// crashes, never corrupts, loses nothing it acknowledged, and works again
// as soon as the device does. Every section proves that its fault fired.
#include <catch2/catch.hpp>
#include <map>

#include "error_vfs_fixture.h"
#include "proof/checker.h"
#include "proof/evidence.h"
#include "proof/recorded_call.h"
#include "store_fixture.h"
#include "temp_dir.h"

namespace outpost::faults {
namespace {

using outpost::testing::TempDir;

// The workload that runs while a fault is armed. Besides alarms on a warm
// cache (WAL writes and syncs) it reaches every other VFS call the store
// makes:
//  - a purge (reads and deletes rows);
//  - a 5 MiB application transaction: the WAL passes the checkpoint
//    threshold, so the WAL hook checkpoints (database writes and syncs, file
//    sizes), and the next commit restarts the WAL and truncates it to
//    journal_size_limit;
//  - four times, a close and a reopen: the close checkpoints, locks the database
//    exclusively and deletes the WAL; the open checks which files exist,
//    opens them, locks, maps the WAL index and reads every page from the
//    file (quick_check on a cold cache).
enum class Step { kRecord, kPurge, kCheckpoint, kReopen };
constexpr int kSteps = 16;
Step step_at(int i) {
    switch (i) {
        case 3:
            return Step::kPurge;
        case 5:
            return Step::kCheckpoint;
        case 7:
        case 9:
        case 11:
        case 13:
            return Step::kReopen;
        default:
            return Step::kRecord;
    }
}

// Records one alarm named `token`, with evidence; odd-length tokens carry a key.
Status record(Store& store, EvidenceLog& log, const std::string& token) {
    Alarm alarm = outpost::testing::sample_alarm("pump-1", token.size() % 2 ? "key-" + token : "");
    alarm.text = token;
    return record_with_evidence(store, alarm, EvidenceWriter(&log));
}

// Opens the store if it is closed; the open's status otherwise OK.
Status ensure_open(const std::string& db, std::unique_ptr<Store>* store) {
    if (*store) return Status::ok();
    auto opened = Store::open(db, options_over_errors());
    if (!opened) return opened.status();
    *store = std::move(*opened);
    return Status::ok();
}

// Runs workload step `i`: the status the application would see.
Status run_step(int i, const std::string& db, std::unique_ptr<Store>* store, EvidenceLog& log) {
    Status status = ensure_open(db, store);
    if (!status) return status;
    const std::string token = "during-" + std::to_string(i);
    switch (step_at(i)) {
        case Step::kRecord:
            return record(**store, log, token);
        case Step::kPurge:
            return (*store)->purge_expired().status();
        case Step::kCheckpoint:
            return fill_past_checkpoint(**store);
        case Step::kReopen:
            store->reset();  // closes, which checkpoints and deletes the WAL
            return ensure_open(db, store);
    }
    return Status::ok();
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

// A store with five alarms, in a fresh directory.
std::unique_ptr<Store> store_with_alarms(const std::string& db, EvidenceLog& log) {
    auto opened = Store::open(db, options_over_errors());
    REQUIRE_OK(opened);
    std::unique_ptr<Store> store = std::move(*opened);
    for (int i = 0; i < 5; ++i) REQUIRE_OK(record(*store, log, "before-" + std::to_string(i)));
    return store;
}

// How often the workload calls each VFS operation, measured once without
// faults. The workload is deterministic, so a fault at the n-th call of an
// operation fires whenever n is at most this count.
const std::map<IoOp, uint64_t>& workload_calls() {
    static const std::map<IoOp, uint64_t> calls = [] {
        TempDir dir;
        const std::string db = dir.file("outbox.db");
        EvidenceLog log;
        error_vfs().clear();
        std::unique_ptr<Store> store = store_with_alarms(db, log);
        std::map<IoOp, uint64_t> before;
        for (IoOp op : kAllIoOps) before[op] = error_vfs().calls(op);
        for (int i = 0; i < kSteps; ++i) REQUIRE_OK(run_step(i, db, &store, log));
        std::map<IoOp, uint64_t> made;
        for (IoOp op : kAllIoOps) made[op] = error_vfs().calls(op) - before[op];
        return made;
    }();
    return calls;
}

// One scenario: a store with some alarms, the fault, the workload through
// it, the repair, and the checks.
void run_scenario(const IoFault& fault) {
    TempDir dir;
    const std::string db = dir.file("outbox.db");
    EvidenceLog log;
    error_vfs().clear();
    std::unique_ptr<Store> store = store_with_alarms(db, log);

    const uint64_t failures_before = error_vfs().failures();
    error_vfs().inject(fault);
    int failures = 0;
    int last_failure = -1;
    for (int i = 0; i < kSteps; ++i) {
        Status status = run_step(i, db, &store, log);
        if (status) continue;
        INFO("step " << i << ": " << status.to_string());
        CHECK(expected_error(status, fault));
        CHECK(!status.message().empty());
        ++failures;
        last_failure = i;
    }
    // The fault was met: this section tested something.
    CHECK(error_vfs().failures() > failures_before);
    if (!fault.persistent) {
        // A transient fault costs at most the calls that met it.
        CHECK(failures <= 2);
        CHECK(last_failure < kSteps - 1);
    }
    error_vfs().clear();
    // Repaired: the store must work again at once (it reopens if it closed).
    Status after = ensure_open(db, &store);
    if (after) after = record(*store, log, "after-repair");
    INFO(after.to_string());
    CHECK(after.is_ok());
    for (const std::string& token : log.open_calls()) {
        // The application's retry after an unknown outcome.
        if (store) {
            record(*store, log, token)
                .ignore_error("the evidence log holds its outcome for the checker");
        }
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

TEST_CASE("the fault workload reaches every VFS call the store makes") {
    for (IoOp op : kAllIoOps) {
        INFO(io_op_name(op) << " calls: " << workload_calls().at(op));
        CHECK(workload_calls().at(op) >= 1);
    }
}

TEST_CASE("a transient I/O error at any VFS call costs at most the calls that met it") {
    for (IoOp op : kAllIoOps) {
        for (uint64_t nth : {1, 2, 3, 5, 8}) {
            // Only calls the workload makes can fail (see workload_calls).
            if (nth > workload_calls().at(op)) continue;
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
            if (nth > workload_calls().at(op)) continue;
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
        CHECK(error_vfs().failures() == before);
        fault.path_suffix = "-wal";
        error_vfs().inject(fault);
        CHECK_FALSE((*opened)->record_alarm(outpost::testing::sample_alarm()).is_ok());
        error_vfs().clear();
    }
    CHECK(error_vfs().failures() > before);
}

}  // namespace outpost::faults
