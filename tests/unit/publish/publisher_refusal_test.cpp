// Message-level failures: a publish the broker refuses, and a payload above
// the broker's Maximum Packet Size, count one attempt each, back off, and
// move the row to DEAD after max_attempts with the reason in last_error;
// the rest of the outbox goes on.
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "publisher_rig.h"

using namespace std::chrono_literals;
using namespace outpost::testing;  // the rig, the scripted broker, eventually()

TEST_CASE("a publish the broker refuses backs off and moves to DEAD after max_attempts") {
    PublisherRig rig;
    rig.broker.set_refusal_reason("PUBACK reason 0x87 (Not authorized)");
    rig.broker.set_policy([](const PublishRecord& record) {
        return record.device_id == "forbidden" ? Verdict::kRefuse : Verdict::kAck;
    });
    auto options = quick_publisher_options();
    options.max_attempts = 3;
    options.retry_initial = 40ms;
    options.retry_max = 40ms;  // every pause is drawn from [20 ms, 40 ms]
    rig.start(options);

    const auto refused = rig.record("forbidden");
    const auto fine = rig.record("allowed");
    REQUIRE(rig.row_in_state(refused.event_id, kDead));
    REQUIRE(rig.row_in_state(fine.event_id, kSent));

    const auto row = rig.row(refused.event_id);
    CHECK(row.attempts == 3);
    CHECK(row.last_error.find("0x87") != std::string::npos);
    CHECK(row.last_error.find("Not authorized") != std::string::npos);
    const auto attempts = rig.broker.publishes_of(refused.event_id);
    REQUIRE(attempts.size() == 3);
    // Each retry waited at least the lowest backoff after the refusal of the
    // attempt before it (which came after that attempt was published).
    for (size_t i = 1; i < attempts.size(); ++i) {
        CHECK(attempts[i].at - attempts[i - 1].at >= 20ms);
    }
    CHECK(rig.broker.publishes_of(fine.event_id).size() == 1);
    // The counters move on the publisher thread once it has the commits'
    // results, a moment after the rows changed: wait for them, then check
    // that each counted exactly once.
    REQUIRE(eventually([&] {
        const auto counted = rig.status();
        return counted.sent >= 1 && counted.dead >= 1;
    }));
    const auto status = rig.status();
    CHECK(status.refused == 3);
    CHECK(status.dead == 1);
    CHECK(status.sent == 1);
    CHECK(rig.broker.connects() == 1);  // a refusal is not a connection problem
}

TEST_CASE("a payload above the broker's Maximum Packet Size is a message-level failure") {
    PublisherRig rig;
    outpost::publish::BrokerLimits limits;
    limits.maximum_packet_size = 700;
    rig.broker.set_limits(limits);
    auto options = quick_publisher_options();
    options.max_attempts = 2;
    rig.start(options);

    const auto big = rig.record("pump-big", std::string(1000, 'x'));
    const auto small = rig.record("pump-small");
    REQUIRE(rig.row_in_state(big.event_id, kDead));
    REQUIRE(rig.row_in_state(small.event_id, kSent));

    const auto row = rig.row(big.event_id);
    CHECK(row.attempts == 2);
    CHECK(row.last_error.find("payload too large") != std::string::npos);
    CHECK(row.last_error.find("maximum packet size of 700") != std::string::npos);
    // Refused before it left: the broker never saw it, and the connection
    // (which a real broker would have closed) stayed up.
    CHECK(rig.broker.publishes_of(big.event_id).empty());
    for (const auto& record : rig.broker.publishes()) CHECK(record.payload.size() < 700);
    CHECK(rig.broker.connects() == 1);
    REQUIRE(eventually([&] { return rig.status().dead >= 1; }));  // counted after the commit
    CHECK(rig.status().dead == 1);
}

TEST_CASE(
    "an event turning DEAD is reported once to on_dead with its id, device, reason and attempts") {
    PublisherRig rig;
    rig.broker.set_refusal_reason("PUBACK reason 0x87 (Not authorized)");
    rig.broker.set_policy([](const PublishRecord& record) {
        return record.device_id == "forbidden" ? Verdict::kRefuse : Verdict::kAck;
    });
    std::mutex mutex;
    std::vector<outpost::DeadEvent> reports;  // guarded by mutex
    std::vector<std::thread::id> threads;     // guarded by mutex
    auto options = quick_publisher_options();
    options.max_attempts = 2;
    options.on_dead = [&](const outpost::DeadEvent& event) {
        std::lock_guard<std::mutex> lock(mutex);
        reports.push_back(event);
        threads.push_back(std::this_thread::get_id());
    };
    rig.start(options);

    const auto refused = rig.record("forbidden");
    const auto fine = rig.record("allowed");
    REQUIRE(rig.row_in_state(refused.event_id, kDead));
    REQUIRE(rig.row_in_state(fine.event_id, kSent));
    // The report follows the DEAD commit on the publisher thread: wait for it.
    REQUIRE(eventually([&] {
        std::lock_guard<std::mutex> lock(mutex);
        return !reports.empty();
    }));
    std::lock_guard<std::mutex> lock(mutex);
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].event_id == refused.event_id);
    CHECK(reports[0].device_id == "forbidden");
    CHECK(reports[0].seq == 1);
    CHECK(reports[0].reason == rig.row(refused.event_id).last_error);
    CHECK(reports[0].reason.find("0x87") != std::string::npos);
    CHECK(reports[0].attempts == 2);
    CHECK(reports[0].attempts == rig.row(refused.event_id).attempts);
    CHECK(threads[0] != std::this_thread::get_id());
}

TEST_CASE("an on_dead callback that throws does not stop the publisher") {
    PublisherRig rig;
    rig.broker.set_policy([](const PublishRecord& record) {
        return record.device_id == "forbidden" ? Verdict::kRefuse : Verdict::kAck;
    });
    auto options = quick_publisher_options();
    options.max_attempts = 1;
    options.on_dead = [](const outpost::DeadEvent&) { throw std::runtime_error("pager down"); };
    rig.start(options);

    const auto refused = rig.record("forbidden");
    REQUIRE(rig.row_in_state(refused.event_id, kDead));
    const auto after = rig.record("allowed");
    REQUIRE(rig.row_in_state(after.event_id, kSent));
    CHECK(eventually(
        [&] { return rig.status().last_error.find("pager down") != std::string::npos; }));
    CHECK(rig.status().dead == 1);
}
