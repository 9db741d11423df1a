// The in-process wake-up the publisher relies on: StoreCore calls its commit
// listener after each durable commit, and never after a detached listener.
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "outpost/store.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

TEST_CASE("the commit listener hears every committed write and nothing that failed") {
    TempDir dir;
    auto store = open_store(dir.file("c.db"), test_options());
    std::atomic<int> heard{0};
    store::core_of(*store).set_commit_listener([&] { heard++; });

    REQUIRE_OK(store->record_alarm(sample_alarm()));
    CHECK(heard.load() == 1);

    // Refused before anything is queued: no commit, no announcement.
    Alarm invalid = sample_alarm();
    invalid.device_id = "not a valid id";
    CHECK_FALSE(store->record_alarm(invalid).is_ok());
    CHECK(heard.load() == 1);
}

TEST_CASE("concurrent writers each see their commit announced before they return") {
    TempDir dir;
    auto store = open_store(dir.file("c.db"), test_options());
    std::atomic<int> heard{0};
    store::core_of(*store).set_commit_listener([&] { heard++; });
    // Catch2 assertions are not thread-safe: the writers count, the test checks.
    std::atomic<int> failed_writes{0};
    std::atomic<int> unannounced{0};
    std::vector<std::thread> writers;
    for (int t = 0; t < 4; ++t) {
        writers.emplace_back([&] {
            for (int i = 0; i < 25; ++i) {
                int before = heard.load();
                if (!store->record_alarm(sample_alarm("dev-" + std::to_string(i % 3)))) {
                    failed_writes++;
                }
                if (heard.load() <= before) unannounced++;
            }
        });
    }
    for (auto& writer : writers) writer.join();
    CHECK(failed_writes.load() == 0);
    CHECK(unannounced.load() == 0);
    auto stats = store->stats();
    REQUIRE_OK(stats);
    // Group commit shares transactions: one announcement per commit.
    CHECK(static_cast<uint64_t>(heard.load()) == stats->commits);
}

TEST_CASE("a removed commit listener is never called again") {
    TempDir dir;
    auto store = open_store(dir.file("c.db"), test_options());
    std::atomic<int> heard{0};
    store::core_of(*store).set_commit_listener([&] { heard++; });
    REQUIRE_OK(store->record_alarm(sample_alarm()));
    store::core_of(*store).set_commit_listener(nullptr);
    REQUIRE_OK(store->record_alarm(sample_alarm()));
    CHECK(heard.load() == 1);
}
