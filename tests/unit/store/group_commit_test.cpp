// Concurrent callers share transactions without losing or duplicating rows,
// and a batch commits once for everyone queued behind its leader.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store/record.h"
#include "store/store_internal.h"
#include "store/store_core.h"
#include "store_fixture.h"
#include "writer_hold.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

std::unique_ptr<store::StoreCore> open_core(const std::string& path, const StoreOptions& options) {
    auto core = store::StoreCore::open(path, options);
    if (!core) throw std::runtime_error("open " + path + ": " + core.status().to_string());
    return std::move(*core);
}

// One queued writer: an alarm (the record_alarm path) or, when `throws` is
// set, an isolated op that enqueues an event and then throws, as a
// Store::transact body may.
struct QueuedWriter {
    std::string device;
    bool throws = false;
    Status status;
    RecordedEvent recorded;
    std::thread thread;
};

void start_writer(store::StoreCore& core, QueuedWriter& writer) {
    writer.thread = std::thread([&core, &writer] {
        store::WriteOp op;
        if (writer.throws) {
            op.isolated = true;
            op.apply = [&writer](store::BatchContext& context) -> Status {
                Event event{"THING_HAPPENED", writer.device, "thing", "x", "{}", ""};
                Status inserted = store::insert_event(context, event, &writer.recorded);
                if (!inserted) return inserted;
                throw std::runtime_error("body blew up");
            };
        } else {
            op.growth_bytes = 512;
            op.apply = [&writer](store::BatchContext& context) {
                return store::insert_alarm(context, sample_alarm(writer.device), &writer.recorded);
            };
        }
        writer.status = core.submit(op);
    });
}

uint64_t commits(store::StoreCore& core) {
    auto stats = core.stats();
    if (!stats) throw std::runtime_error(stats.status().to_string());
    return stats->commits;
}

}  // namespace

TEST_CASE("writers queued behind a busy leader commit together, max_batch at a time") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    constexpr size_t kWriters = 12;
    size_t max_batch = 0;
    uint64_t expected_batches = 0;
    SECTION("one batch for all") {
        max_batch = 256;
        expected_batches = 1;
    }
    SECTION("batches of at most 5") {
        max_batch = 5;
        expected_batches = 3;  // 5 + 5 + 2
    }
    StoreOptions options = test_options();
    options.max_batch = static_cast<uint32_t>(max_batch);
    auto core = open_core(path, options);
    const uint64_t before = commits(*core);

    std::vector<QueuedWriter> writers(kWriters);
    {
        WriterHold hold(*core);
        for (size_t i = 0; i < kWriters; ++i) {
            writers[i].device = "pump-" + std::to_string(i % 3);
            start_writer(*core, writers[i]);
            REQUIRE(wait_for_queue(*core, i + 2));  // the hold, then writers in order
        }
        REQUIRE_OK(hold.release());
    }
    for (auto& writer : writers) writer.thread.join();

    for (const auto& writer : writers) REQUIRE_OK(writer.status);
    // The hold's batch, then the writers' batches: one commit each.
    CHECK(commits(*core) == before + 1 + expected_batches);
    RawSqlite db(path);
    for (const auto& writer : writers) {
        CHECK(db.integer("SELECT count(*) FROM outbox o JOIN alarm_record a USING (id)"
                         " WHERE o.event_id = '" +
                         writer.recorded.event_id + "'") == 1);
    }
    // Queue order is commit order: each device's seq rises with it.
    std::map<std::string, int64_t> last_seq;
    for (const auto& writer : writers) {
        CHECK(writer.recorded.seq == last_seq[writer.device] + 1);
        last_seq[writer.device] = writer.recorded.seq;
    }
}

TEST_CASE(
    "an operation that throws inside a shared batch fails alone and the store keeps serving") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    size_t thrower = 0;
    SECTION("the thrower leads the batch") {
        thrower = 0;
    }
    SECTION("the thrower is in the middle of the batch") {
        thrower = 3;
    }
    SECTION("the thrower is last in the batch") {
        thrower = 6;
    }
    auto core = open_core(path, test_options());
    const uint64_t before = commits(*core);

    std::vector<QueuedWriter> writers(7);
    {
        WriterHold hold(*core);
        for (size_t i = 0; i < writers.size(); ++i) {
            writers[i].device = "pump-1";
            writers[i].throws = i == thrower;
            start_writer(*core, writers[i]);
            REQUIRE(wait_for_queue(*core, i + 2));
        }
        REQUIRE_OK(hold.release());
    }
    for (auto& writer : writers) writer.thread.join();

    const QueuedWriter& failed = writers[thrower];
    CHECK(failed.status.code() == StatusCode::kInternal);
    CHECK_THAT(failed.status.message(), Catch::Contains("body blew up"));
    int64_t seq = 0;
    for (size_t i = 0; i < writers.size(); ++i) {
        if (i == thrower) continue;
        REQUIRE_OK(writers[i].status);
        // The thrower's rolled-back event consumed no sequence number.
        CHECK(writers[i].recorded.seq == ++seq);
    }
    CHECK(commits(*core) == before + 2);  // the hold's batch and the shared one
    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox WHERE event_id = '" + failed.recorded.event_id +
                     "'") == 0);
    CHECK(db.integer("SELECT count(*) FROM outbox") == int64_t(writers.size() - 1));

    // Still serving: a new writer commits, and close returns.
    QueuedWriter after;
    after.device = "pump-1";
    start_writer(*core, after);
    after.thread.join();
    REQUIRE_OK(after.status);
    CHECK(after.recorded.seq == seq + 1);
    REQUIRE_OK(core->close());
}

TEST_CASE(
    "an exception outside any caller's body fails its batch only, losing no sequence number") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto core = open_core(path, test_options());

    std::vector<QueuedWriter> writers(4);
    Status broken_status;
    std::thread broken;
    {
        WriterHold hold(*core);
        for (size_t i = 0; i < 2; ++i) {
            writers[i].device = "pump-1";
            start_writer(*core, writers[i]);
            REQUIRE(wait_for_queue(*core, i + 2));
        }
        // An op of the engine itself (not isolated) that runs out of memory.
        broken = std::thread([&] {
            store::WriteOp op;
            op.apply = [](store::BatchContext&) -> Status { throw std::bad_alloc(); };
            broken_status = core->submit(op);
        });
        REQUIRE(wait_for_queue(*core, 4));
        for (size_t i = 2; i < 4; ++i) {
            writers[i].device = "pump-1";
            start_writer(*core, writers[i]);
            REQUIRE(wait_for_queue(*core, i + 3));
        }
        REQUIRE_OK(hold.release());
    }
    broken.join();
    for (auto& writer : writers) writer.thread.join();

    // The whole batch shared the failed transaction: nothing of it was written.
    CHECK(broken_status.code() == StatusCode::kInternal);
    for (const auto& writer : writers) CHECK(writer.status.code() == StatusCode::kInternal);
    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox") == 0);

    QueuedWriter after;
    after.device = "pump-1";
    start_writer(*core, after);
    after.thread.join();
    REQUIRE_OK(after.status);
    CHECK(after.recorded.seq == 1);
}

TEST_CASE("a commit listener that throws does not undo a durable commit or its sequence numbers") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto core = open_core(path, test_options());
    std::atomic<int> calls{0};
    core->set_commit_listener([&] {
        if (calls++ == 0) throw std::runtime_error("listener blew up");
    });
    QueuedWriter first;
    first.device = "pump-1";
    start_writer(*core, first);
    first.thread.join();
    // Committed and durable: reporting a failure now would be a lie.
    REQUIRE_OK(first.status);
    QueuedWriter second;
    second.device = "pump-1";
    start_writer(*core, second);
    second.thread.join();
    REQUIRE_OK(second.status);
    CHECK(second.recorded.seq == first.recorded.seq + 1);
    CHECK(calls.load() == 2);
    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox") == 2);
}

TEST_CASE(
    "a transact body that throws gets kInternal, its writes roll back, and the store serves on") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto store = open_store(path, test_options());
    std::string thrown_event;
    auto thrown = store->transact([&](Transaction& tx) -> Status {
        Status created = tx.execute("CREATE TABLE valve (id TEXT PRIMARY KEY)", {});
        if (!created) return created;
        auto enqueued = tx.enqueue(Event{"VALVE_OPENED", "valve-1", "valve", "v1", "{}", ""});
        if (!enqueued) return enqueued.status();
        thrown_event = enqueued->event_id;
        throw std::runtime_error("application bug");
    });
    REQUIRE_FALSE(thrown.is_ok());
    CHECK(thrown.status().code() == StatusCode::kInternal);
    CHECK_THAT(thrown.status().message(), Catch::Contains("application bug"));
    CHECK_FALSE(thrown_event.empty());

    auto recorded = store->record_alarm(sample_alarm());
    REQUIRE_OK(recorded);
    CHECK(recorded->seq == 1);
    {
        RawSqlite db(path);
        CHECK(db.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'valve'") == 0);
        CHECK(db.integer("SELECT count(*) FROM outbox WHERE event_id = '" + thrown_event + "'") ==
              0);
    }
    REQUIRE_OK(store->close());
    store.reset();  // the destructor returns too
}

TEST_CASE("8 threads recording at once lose nothing, duplicate nothing and keep per-device order") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto store = open_store(path, test_options());
    store::StoreCore& core = store::core_of(*store);
    const uint64_t before = commits(core);
    constexpr int kThreads = 8;
    constexpr int kPerThread = 150;
    std::mutex mutex;
    std::vector<RecordedEvent> acknowledged;
    std::vector<std::string> failures;
    std::vector<std::thread> threads;
    // Each thread's first alarm queues behind a held writer, so at least
    // those eight share one commit whatever the scheduling.
    auto hold = std::make_unique<WriterHold>(core);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                // Two devices shared between threads, one per thread.
                std::string device = (i % 2 == 0) ? "shared-" + std::to_string(i % 4)
                                                  : "own-" + std::to_string(t);
                auto result = store->record_alarm(sample_alarm(device));
                std::lock_guard<std::mutex> lock(mutex);
                if (result.is_ok()) {
                    acknowledged.push_back(*result);
                } else {
                    failures.push_back(result.status().to_string());
                }
            }
        });
    }
    REQUIRE(wait_for_queue(core, 1 + kThreads));  // the hold, then one alarm per thread
    REQUIRE_OK(hold->release());
    hold.reset();
    for (auto& thread : threads) thread.join();
    REQUIRE(failures.empty());
    REQUIRE(acknowledged.size() == kThreads * kPerThread);

    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox") == kThreads * kPerThread);
    CHECK(db.integer("SELECT count(DISTINCT event_id) FROM outbox") == kThreads * kPerThread);
    CHECK(db.integer("SELECT count(*) FROM alarm_record a JOIN outbox o USING (id)") ==
          kThreads * kPerThread);
    std::set<std::string> stored;
    for (const auto& id : db.column("SELECT event_id FROM outbox")) stored.insert(id);
    for (const auto& event : acknowledged) CHECK(stored.count(event.event_id) == 1);
    // Per device: seq is 1..N with no gap or repeat, and rises with commit order.
    for (const auto& device : db.column("SELECT DISTINCT device_id FROM outbox")) {
        auto seqs = db.column("SELECT seq FROM outbox WHERE device_id = '" + device + "' ORDER BY id");
        for (size_t i = 0; i < seqs.size(); ++i) CHECK(std::stoll(seqs[i]) == int64_t(i + 1));
    }
    auto stats = store->stats();
    REQUIRE_OK(stats);
    CHECK(stats->events_recorded == kThreads * kPerThread);
    // The hold's commit, then at most one per alarm with the eight first
    // alarms in one: a commit per alarm would be seven more.
    INFO("commits for " << stats->events_recorded << " alarms: " << stats->commits - before);
    CHECK(stats->commits - before <= 1 + stats->events_recorded - (kThreads - 1));
    CHECK(stats->pending == kThreads * kPerThread);
}

TEST_CASE("bodies that fail or throw in shared batches fail alone; every other body commits") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto store = open_store(path, test_options());
    enum class Fate { kCommits, kReturnsError, kThrows };
    struct Call {
        Fate fate = Fate::kCommits;
        std::string event_id;  // what the body enqueued, committed or not
        Status status;
    };
    constexpr int kThreads = 8;
    constexpr int kPerThread = 50;
    std::vector<std::vector<Call>> calls(kThreads, std::vector<Call>(kPerThread));
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                Call& call = calls[t][i];
                call.fate = static_cast<Fate>((i + t) % 3);
                auto result = store->transact([&](Transaction& tx) -> Status {
                    Event event{"THING_HAPPENED", "dev-" + std::to_string(t), "thing", "x", "{}", ""};
                    auto enqueued = tx.enqueue(event);
                    if (!enqueued.is_ok()) return enqueued.status();
                    call.event_id = enqueued->event_id;
                    if (call.fate == Fate::kThrows) throw std::runtime_error("thrown");
                    return call.fate == Fate::kReturnsError
                               ? Status::error(StatusCode::kInvalidArgument, "no")
                               : Status::ok();
                });
                call.status = result.status();
            }
        });
    }
    for (auto& thread : threads) thread.join();

    RawSqlite db(path);
    int64_t committed = 0;
    for (const auto& row : calls) {
        for (const Call& call : row) {
            INFO("fate " << static_cast<int>(call.fate) << ": " << call.status.to_string());
            REQUIRE_FALSE(call.event_id.empty());
            const int64_t stored =
                db.integer("SELECT count(*) FROM outbox WHERE event_id = '" + call.event_id + "'");
            switch (call.fate) {
                case Fate::kCommits:
                    CHECK(call.status.is_ok());
                    CHECK(stored == 1);
                    ++committed;
                    break;
                case Fate::kReturnsError:
                    CHECK(call.status.code() == StatusCode::kInvalidArgument);
                    CHECK(call.status.message() == "no");
                    CHECK(stored == 0);
                    break;
                case Fate::kThrows:
                    CHECK(call.status.code() == StatusCode::kInternal);
                    CHECK_THAT(call.status.message(), Catch::Contains("thrown"));
                    CHECK(stored == 0);
                    break;
            }
        }
    }
    CHECK(db.integer("SELECT count(*) FROM outbox") == committed);
    // Rolled-back events consumed no sequence numbers: still 1..N per device.
    for (const auto& device : db.column("SELECT DISTINCT device_id FROM outbox")) {
        CHECK(db.integer("SELECT max(seq) FROM outbox WHERE device_id = '" + device + "'") ==
              db.integer("SELECT count(*) FROM outbox WHERE device_id = '" + device + "'"));
    }
}

namespace {

// A caller whose op records the thread it ran on, inserts an alarm, then
// (optionally) waits inside the open transaction and fails its batch. Right
// after submit returns it looks for its row through a second connection.
struct TracedWriter {
    std::string device = "pump-1";
    Gate* hold_inside = nullptr;  // the op waits here inside the transaction
    bool fails = false;           // then returns an error (not isolated: the batch fails)
    Gate entered;                 // opened once the op has inserted its row
    std::thread::id caller;
    std::thread::id ran_on;
    RecordedEvent recorded;
    Status status;
    int64_t rows_seen_at_return = -1;  // its event's rows in the file, read at return
    std::thread thread;
};

void start_traced(store::StoreCore& core, TracedWriter& writer) {
    writer.thread = std::thread([&core, &writer] {
        writer.caller = std::this_thread::get_id();
        store::WriteOp op;
        op.growth_bytes = 512;
        op.apply = [&writer](store::BatchContext& context) -> Status {
            writer.ran_on = std::this_thread::get_id();
            Status inserted =
                store::insert_alarm(context, sample_alarm(writer.device), &writer.recorded);
            if (!inserted) return inserted;
            writer.entered.open();
            if (writer.hold_inside != nullptr && !writer.hold_inside->wait()) {
                return Status::error(StatusCode::kTimeout, "never released");
            }
            return writer.fails ? Status::error(StatusCode::kInvalidArgument, "refused by the test")
                                : Status::ok();
        };
        writer.status = core.submit(op);
        try {
            RawSqlite db(core.path(), SQLITE_OPEN_READONLY);
            writer.rows_seen_at_return = db.integer(
                "SELECT count(*) FROM outbox WHERE event_id = '" + writer.recorded.event_id + "'");
        } catch (const std::exception&) {
            writer.rows_seen_at_return = -2;
        }
    });
}

}  // namespace

TEST_CASE(
    "a leader leads the batches queued behind its own, and a failed one fails only its callers") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto core = open_core(path, test_options());
    const uint64_t before = commits(*core);

    // a leads; b and c queue behind it; d queues while b's batch is open.
    TracedWriter a, b, c, d;
    Gate release_a, release_b;
    a.hold_inside = &release_a;
    b.hold_inside = &release_b;
    b.fails = true;
    start_traced(*core, a);
    REQUIRE(a.entered.wait());
    start_traced(*core, b);
    REQUIRE(wait_for_queue(*core, 2));
    start_traced(*core, c);
    REQUIRE(wait_for_queue(*core, 3));
    release_a.open();
    REQUIRE(b.entered.wait());  // b's batch (b, c) is open, a's is over
    REQUIRE(wait_for_queue(*core, 2));
    start_traced(*core, d);
    REQUIRE(wait_for_queue(*core, 3));
    release_b.open();
    for (TracedWriter* writer : {&a, &b, &c, &d}) writer->thread.join();

    // a's caller led all three batches: b's and d's ops ran on its thread.
    CHECK(b.ran_on == a.caller);
    CHECK(d.ran_on == a.caller);
    // The failed batch failed its own callers, b and c, and nobody else.
    REQUIRE_OK(a.status);
    CHECK(b.status.code() == StatusCode::kInvalidArgument);
    CHECK_THAT(b.status.message(), Catch::Contains("refused by the test"));
    CHECK(c.status.code() == StatusCode::kInvalidArgument);
    REQUIRE_OK(d.status);
    // Each success was in the file when its caller returned; the failure not.
    CHECK(a.rows_seen_at_return == 1);
    CHECK(d.rows_seen_at_return == 1);
    CHECK(b.rows_seen_at_return == 0);
    CHECK(commits(*core) == before + 2);
    REQUIRE_OK(core->close());
    core.reset();

    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox") == 2);
    CHECK(db.integer("SELECT count(*) FROM alarm_record") == 2);
    // b's rolled-back seq was not consumed: a then d, in queue order.
    CHECK(a.recorded.seq == 1);
    CHECK(d.recorded.seq == 2);
}

TEST_CASE("a leader hands the lead on after kMaxBatchesPerLeader batches, so its caller returns") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    StoreOptions options = test_options();
    options.max_batch = 1;  // one op per batch: the batches a leader runs are countable
    auto core = open_core(path, options);
    constexpr size_t kCap = store::StoreCore::kMaxBatchesPerLeader;

    TracedWriter first;
    Gate release;
    first.hold_inside = &release;
    start_traced(*core, first);
    REQUIRE(first.entered.wait());
    std::vector<TracedWriter> writers(kCap + 1);
    for (size_t i = 0; i < writers.size(); ++i) {
        start_traced(*core, writers[i]);
        REQUIRE(wait_for_queue(*core, i + 2));
    }
    release.open();
    first.thread.join();
    for (auto& writer : writers) writer.thread.join();

    REQUIRE_OK(first.status);
    CHECK(first.rows_seen_at_return == 1);
    // The first caller led its own batch and kCap - 1 more ...
    for (size_t i = 0; i + 1 < kCap; ++i) {
        INFO("writer " << i);
        CHECK(writers[i].ran_on == first.caller);
    }
    // ... then handed the lead to the next op, whose caller led on.
    CHECK(writers[kCap - 1].ran_on == writers[kCap - 1].caller);
    CHECK(writers[kCap].ran_on == writers[kCap - 1].caller);
    int64_t seq = first.recorded.seq;
    for (size_t i = 0; i < writers.size(); ++i) {
        INFO("writer " << i);
        REQUIRE_OK(writers[i].status);
        CHECK(writers[i].rows_seen_at_return == 1);
        CHECK(writers[i].recorded.seq == ++seq);  // queue order is commit order
    }
}
