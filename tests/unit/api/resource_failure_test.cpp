// The public C++ API throws nothing (outpost/status.h), even when the
// process runs out of memory or threads. Both are injected here, on the
// calling thread only: a replacement global operator new that fails one
// chosen allocation, and a pthread_create that fails with EAGAIN while
// armed (the others go to the C library's). Every call must return a
// Status, and the objects must work normally once the failure is gone.
#include <dlfcn.h>
#include <pthread.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <new>
#include <string>

#include "outpost/publisher.h"
#include "outpost/store.h"
#include "outpost/store_admin.h"
#include "outpost/telemetry.h"
#include "temp_dir.h"

namespace {

// Allocations left before the one that fails (-1: none fails), and whether
// it failed. Per thread: only the thread under test is affected.
thread_local long allocations_before_failure = -1;
thread_local bool allocation_failed = false;
thread_local bool thread_creation_fails = false;

// Runs `call` with its `allocations`-th allocation failing (counted from 0;
// later ones succeed) and sets `fired` when that allocation was reached.
// Only `call` runs armed, never the test framework around it.
template <typename Call>
auto with_allocation_failure(long allocations, bool& fired, Call&& call) {
    struct Disarm {
        bool& fired;
        ~Disarm() {
            allocations_before_failure = -1;
            fired = allocation_failed;
        }
    } disarm{fired};
    allocation_failed = false;
    allocations_before_failure = allocations;
    return call();
}

}  // namespace

// Not inlined, so that the compiler never pairs the malloc/free inside with
// a new/delete expression it can see (-Wmismatched-new-delete).
[[gnu::noinline]] void* operator new(std::size_t size) {
    if (allocations_before_failure == 0) {
        allocations_before_failure = -1;
        allocation_failed = true;
        throw std::bad_alloc();
    }
    if (allocations_before_failure > 0) --allocations_before_failure;
    if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
    throw std::bad_alloc();
}

[[gnu::noinline]] void operator delete(void* memory) noexcept {
    std::free(memory);
}

[[gnu::noinline]] void operator delete(void* memory, std::size_t) noexcept {
    std::free(memory);
}

// Default visibility: the C++ library's std::thread must find this one
// first (the project builds with hidden visibility).
extern "C" [[gnu::visibility("default")]] int pthread_create(
    pthread_t* thread, const pthread_attr_t* attributes, void* (*start)(void*), void* argument) {
    if (thread_creation_fails) return EAGAIN;
    using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
    static const auto real = reinterpret_cast<Create>(dlsym(RTLD_NEXT, "pthread_create"));
    return real(thread, attributes, start, argument);
}

namespace {

using outpost::StatusCode;

struct ThreadsFail {
    ThreadsFail() { thread_creation_fails = true; }
    ~ThreadsFail() { thread_creation_fails = false; }
};

outpost::StoreOptions store_options() {
    outpost::StoreOptions options;
    options.gateway_id = "gw-resources";
    return options;
}

outpost::Alarm alarm_numbered(int number) {
    outpost::Alarm alarm;
    alarm.device_id = "dev-1";
    alarm.alarm_type = "OVER_TEMP";
    alarm.text = "a text long enough that copying it allocates: " + std::to_string(number);
    alarm.idempotency_key = "key-" + std::to_string(number);
    return alarm;
}

outpost::PublisherOptions publisher_options() {
    outpost::PublisherOptions options;
    options.endpoint.uri = "tcp://127.0.0.1:9";  // nothing listens: the start is what matters
    options.endpoint.connect_timeout = std::chrono::milliseconds(200);
    return options;
}

}  // namespace

TEST_CASE("every allocation failure in record_alarm comes back as a Status, and the store goes on") {
    outpost::testing::TempDir dir;
    auto store = outpost::Store::open(dir.path() + "/alarms.db", store_options());
    REQUIRE(store);
    int exhausted = 0;
    int number = 0;
    for (long allocations = 0;; ++allocations) {
        REQUIRE(allocations < 5000);  // the sweep ends when a call makes fewer allocations
        outpost::Result<outpost::RecordedEvent> recorded(
            outpost::Status::error(StatusCode::kInternal, "unset"));
        const outpost::Alarm alarm = alarm_numbered(++number);
        bool fired = false;
        REQUIRE_NOTHROW(recorded = with_allocation_failure(
                            allocations, fired, [&] { return (*store)->record_alarm(alarm); }));
        if (!fired) {
            REQUIRE(recorded);
            break;
        }
        if (!recorded) {
            INFO(recorded.status().to_string());
            CHECK(!recorded.status().message().empty());
            if (recorded.status().code() == StatusCode::kResourceExhausted) ++exhausted;
        }
        // Nothing is left broken: the next alarm records normally.
        REQUIRE((*store)->record_alarm(alarm_numbered(++number)));
    }
    CHECK(exhausted > 0);
    auto stats = (*store)->stats();
    REQUIRE(stats);
    CHECK(stats->pending >= number / 2);
}

TEST_CASE("an allocation failure while opening a store or reading it is a Status, never a throw") {
    outpost::testing::TempDir dir;
    for (long allocations = 0;; ++allocations) {
        REQUIRE(allocations < 20000);
        outpost::Result<std::unique_ptr<outpost::Store>> opened(
            outpost::Status::error(StatusCode::kInternal, "unset"));
        const std::string path = dir.path() + "/open.db";
        const outpost::StoreOptions options = store_options();
        bool fired = false;
        REQUIRE_NOTHROW(opened = with_allocation_failure(
                            allocations, fired, [&] { return outpost::Store::open(path, options); }));
        if (!fired) {
            REQUIRE(opened);
            outpost::StoreAdmin admin(**opened);
            outpost::Result<std::vector<outpost::EventRecord>> listed(
                outpost::Status::error(StatusCode::kInternal, "unset"));
            REQUIRE_NOTHROW(listed = with_allocation_failure(0, fired, [&] {
                                return admin.list_events(outpost::EventState::kPending, 0, 10);
                            }));
            CHECK(fired);
            break;
        }
        if (!opened) CHECK(!opened.status().message().empty());
    }
}

TEST_CASE("a publisher that cannot start its thread says kResourceExhausted and starts later") {
    outpost::testing::TempDir dir;
    auto store = outpost::Store::open(dir.path() + "/pub.db", store_options());
    REQUIRE(store);
    {
        ThreadsFail no_threads;
        auto refused = outpost::Publisher::start(**store, publisher_options());
        REQUIRE_FALSE(refused);
        CHECK(refused.status().code() == StatusCode::kResourceExhausted);
        CHECK_THAT(refused.status().message(), Catch::Contains("Publisher::start"));
    }
    auto started = outpost::Publisher::start(**store, publisher_options());
    REQUIRE(started);
    CHECK((*started)->stop(std::chrono::milliseconds(500)).code() != StatusCode::kResourceExhausted);
}

TEST_CASE("every allocation failure in Publisher::start is a Status, and a later start works") {
    outpost::testing::TempDir dir;
    auto store = outpost::Store::open(dir.path() + "/pub-alloc.db", store_options());
    REQUIRE(store);
    for (long allocations = 0;; ++allocations) {
        REQUIRE(allocations < 5000);
        outpost::Result<std::unique_ptr<outpost::Publisher>> started(
            outpost::Status::error(StatusCode::kInternal, "unset"));
        const auto options = publisher_options();
        bool fired = false;
        REQUIRE_NOTHROW(started = with_allocation_failure(allocations, fired, [&] {
                            return outpost::Publisher::start(**store, options);
                        }));
        if (started) {
            (*started)->stop(std::chrono::milliseconds(500)).ignore_error("only the start is tested");
        } else {
            CHECK(started.status().code() == StatusCode::kResourceExhausted);
        }
        if (!fired) break;
    }
}

TEST_CASE("a telemetry lane that cannot start its thread says kResourceExhausted") {
    outpost::TelemetryOptions options;
    options.gateway_id = "gw-resources";
    options.endpoint.uri = "tcp://127.0.0.1:9";
    ThreadsFail no_threads;
    auto refused = outpost::TelemetryLane::start(options);
    REQUIRE_FALSE(refused);
    CHECK(refused.status().code() == StatusCode::kResourceExhausted);
}
