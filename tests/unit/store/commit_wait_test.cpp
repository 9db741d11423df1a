// The group commit's wait (StoreOptions::commit_wait): callers that record
// in a loop end up sharing transactions; a lone caller never waits; close()
// ends a wait. A wait lasts at most as long as the last synced commit took,
// so the stores here sit on a slow-syncing disk (the power-cut simulator's
// sync delay, no cuts): each sync takes long enough that the callers are
// back within it, however busy the machine.
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "outpost/store.h"
#include "proof/powercut_vfs.h"
#include "raw_sqlite.h"
#include "store/store_core.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "temp_dir.h"
#include "writer_hold.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

// A disk whose every sync takes `delay` (and really syncs).
std::unique_ptr<PowercutVfs> slow_disk(const std::string& name, std::chrono::milliseconds delay) {
    PowercutOptions options;
    options.simulate_cuts = false;
    options.sync_delay = delay;
    std::string error;
    auto vfs = PowercutVfs::create(name, options, &error);
    if (!vfs) throw std::runtime_error("slow disk VFS: " + error);
    return vfs;
}

uint64_t commits(Store& store) {
    auto stats = store.stats();
    if (!stats) throw std::runtime_error(stats.status().to_string());
    return stats->commits;
}

// A thread of its own that records one alarm each time it is asked, so the
// store sees the same caller every time (the wait tells callers apart by
// thread).
class Recorder final {
public:
    explicit Recorder(Store& store)
        : thread_([this, &store] {
              std::unique_lock<std::mutex> lock(mutex_);
              for (;;) {
                  cv_.wait(lock, [&] { return asked_ > done_ || quit_; });
                  if (asked_ == done_) return;
                  lock.unlock();
                  Status status = status_of(store.record_alarm(sample_alarm()));
                  lock.lock();
                  statuses_.push_back(status);
                  ++done_;
                  cv_.notify_all();
              }
          }) {}
    ~Recorder() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            quit_ = true;
            cv_.notify_all();
        }
        thread_.join();
    }
    // Asks for one alarm and returns at once.
    void ask() {
        std::lock_guard<std::mutex> lock(mutex_);
        ++asked_;
        cv_.notify_all();
    }
    // Waits (up to 60 s) until every alarm asked for has returned; false if
    // one has not, or one failed.
    bool all_done() {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!cv_.wait_for(lock, std::chrono::seconds(60), [&] { return done_ == asked_; })) {
            return false;
        }
        for (const Status& status : statuses_) {
            if (!status) return false;
        }
        return true;
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    int asked_ = 0;
    int done_ = 0;
    bool quit_ = false;
    std::vector<Status> statuses_;
    std::thread thread_;  // last: starts once the rest exists
};

}  // namespace

TEST_CASE("threads recording in a loop come to share each transaction") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    const auto vfs = slow_disk("commit-wait-loop", std::chrono::milliseconds(100));
    StoreOptions options = test_options();
    options.vfs_name = vfs->name();
    options.commit_wait = std::chrono::hours(1);  // bounded by the 100 ms sync
    auto store = open_store(path, options);
    const uint64_t before = commits(*store);
    constexpr int kThreads = 4;
    constexpr int kPerThread = 30;
    std::mutex mutex;
    std::vector<std::string> failures;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                auto result = store->record_alarm(sample_alarm("pump-" + std::to_string(t)));
                if (!result) {
                    std::lock_guard<std::mutex> lock(mutex);
                    failures.push_back(result.status().to_string());
                }
            }
        });
    }
    for (auto& thread : threads) thread.join();
    REQUIRE(failures.empty());
    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox") == kThreads * kPerThread);
    // Once every thread has written in two of the last four transactions,
    // each transaction waits for all four: about one per round, plus the
    // few before the threads are known, and one after the first thread
    // finishes (waited for once, then forgotten). Without the wait the
    // threads split in two groups that commit in turn (one thread commits,
    // the others queue during its sync and commit next): two per round.
    const uint64_t transactions = commits(*store) - before;
    INFO("transactions for " << kThreads * kPerThread << " alarms: " << transactions);
    CHECK(transactions <= kPerThread + 2 * kThreads);
}

TEST_CASE("a lone caller never waits for the commit wait, however long it is") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    StoreOptions options = test_options();
    // A wait would outlast the test's timeout many times over.
    options.commit_wait = std::chrono::hours(1);
    auto store = open_store(path, options);
    const uint64_t before = commits(*store);
    for (int i = 0; i < 20; ++i) REQUIRE_OK(store->record_alarm(sample_alarm()));
    CHECK(commits(*store) - before == 20);
}

TEST_CASE("callers that wrote once are not waited for; those that keep writing are, until close") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    const auto vfs = slow_disk("commit-wait-callers", std::chrono::milliseconds(300));
    StoreOptions options = test_options();
    options.vfs_name = vfs->name();
    options.commit_wait = std::chrono::hours(1);  // bounded by the 300 ms sync
    auto store = open_store(path, options);
    store::StoreCore& core = store::core_of(*store);
    Recorder a(*store);
    Recorder b(*store);
    // Twice: a held writer (a caller that writes once), then a and b queued
    // behind it, so they share the next transaction. Neither hold's caller
    // is waited for: each wrote in one transaction only. (Both holds live
    // to the end, so their threads' ids stay distinct.)
    std::vector<std::unique_ptr<WriterHold>> holds;
    for (int round = 0; round < 2; ++round) {
        holds.push_back(std::make_unique<WriterHold>(core));
        a.ask();
        REQUIRE(wait_for_queue(core, 2));
        b.ask();
        REQUIRE(wait_for_queue(core, 3));
        REQUIRE_OK(holds.back()->release());
        REQUIRE(a.all_done());
        REQUIRE(b.all_done());
    }
    // a and b each wrote in two of the last four transactions: a's next
    // alarm waits for b's, and they share one transaction. (Without the
    // wait, a's transaction has begun before b is asked: two.)
    const uint64_t before = commits(*store);
    a.ask();
    REQUIRE(wait_for_queue(core, 1));
    b.ask();
    REQUIRE(a.all_done());
    REQUIRE(b.all_done());
    CHECK(commits(*store) == before + 1);
    // a again waits for b, which is not asked: close() ends the wait (or
    // its bound does), a's alarm commits and close returns.
    a.ask();
    REQUIRE(wait_for_queue(core, 1));
    REQUIRE_OK(store->close());
    CHECK(a.all_done());
    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox") == 7);
}
