// Concurrent callers share transactions without losing or duplicating rows.
#include <catch2/catch.hpp>

#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

TEST_CASE("8 threads recording at once lose nothing, duplicate nothing and keep per-device order") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto store = open_store(path, test_options());
    constexpr int kThreads = 8;
    constexpr int kPerThread = 150;
    std::mutex mutex;
    std::vector<RecordedEvent> acknowledged;
    std::vector<std::string> failures;
    std::vector<std::thread> threads;
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
    CHECK(stats->commits <= stats->events_recorded);
    INFO("commits for " << stats->events_recorded << " alarms: " << stats->commits);
    CHECK(stats->pending == kThreads * kPerThread);
}

TEST_CASE("a failing transaction body in a shared batch does not disturb the others") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto store = open_store(path, test_options());
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    std::atomic<int> refused{0};
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 50; ++i) {
                bool fail = (i + t) % 3 == 0;
                auto result = store->transact([&](Transaction& tx) {
                    Event event{"THING_HAPPENED", "dev-" + std::to_string(t), "thing", "x", "{}", ""};
                    auto enqueued = tx.enqueue(event);
                    if (!enqueued.is_ok()) return enqueued.status();
                    return fail ? Status::error(StatusCode::kInvalidArgument, "no") : Status::ok();
                });
                (result.is_ok() ? ok : refused)++;
            }
        });
    }
    for (auto& thread : threads) thread.join();
    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox") == ok.load());
    CHECK(ok + refused == 400);
    // Rolled-back events consumed no sequence numbers: still 1..N per device.
    for (const auto& device : db.column("SELECT DISTINCT device_id FROM outbox")) {
        CHECK(db.integer("SELECT max(seq) FROM outbox WHERE device_id = '" + device + "'") ==
              db.integer("SELECT count(*) FROM outbox WHERE device_id = '" + device + "'"));
    }
}
