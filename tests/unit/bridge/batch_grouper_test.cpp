// Which held messages the batched session sends together, and when: by
// RocketMQ topic and destination queue (by device while the queue is
// unknown), each device in arrival order, full or lingered.
#include "bridge/mqtt/batch_grouper.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace outpost::bridge;

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

ReadyMessage ready(const std::string& topic, const std::string& device, const std::string& id,
                   std::size_t body_bytes = 10) {
    ReadyMessage message;
    message.out.topic = topic;  // queue "": unknown
    message.out.sharding_key = device;
    message.out.keys = id;
    message.out.body = std::string(body_bytes, 'x');
    message.event_id = id;
    return message;
}

// A ready message whose device picked `queue` when it was prepared.
ReadyMessage on_queue(const std::string& queue, const std::string& device, const std::string& id) {
    ReadyMessage message = ready("alarms", device, id);
    message.queue = queue;
    return message;
}

std::vector<std::string> ids(const Batch& batch) {
    std::vector<std::string> out;
    for (const ReadyMessage& message : batch.messages) out.push_back(message.event_id);
    return out;
}

// Every batch due at `now`, in the order handed out, each as its eventIds.
std::vector<std::vector<std::string>> take_all(BatchGrouper& grouper, Clock::time_point now) {
    std::vector<std::vector<std::string>> batches;
    while (std::optional<Batch> batch = grouper.take_due(now)) batches.push_back(ids(*batch));
    return batches;
}

}  // namespace

TEST_CASE("devices whose messages name one queue share a batch, each device in arrival order") {
    BatchGrouper grouper(8, 1024 * 1024, milliseconds(5));
    const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);
    grouper.add(1, on_queue("broker-a/1", "dev-a", "a1"), t0);
    grouper.add(2, on_queue("broker-a/1", "dev-b", "b1"), t0);
    grouper.add(3, on_queue("broker-a/2", "dev-c", "c1"), t0);
    grouper.add(4, on_queue("broker-a/1", "dev-a", "a2"), t0);
    grouper.add(5, on_queue("broker-a/1", "dev-b", "b2"), t0);
    std::optional<Batch> first = grouper.take_due(t0 + milliseconds(5));
    REQUIRE(first);
    CHECK(ids(*first) == std::vector<std::string>{"a1", "b1", "a2", "b2"});
    CHECK(first->packet_ids == std::vector<std::uint16_t>{1, 2, 4, 5});
    CHECK(take_all(grouper, t0 + milliseconds(5)) ==
          std::vector<std::vector<std::string>>{{"c1"}});
}

TEST_CASE("the devices of one queue fill a batch together, and it is due once full") {
    BatchGrouper grouper(4, 1024 * 1024, milliseconds(1000));
    const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);
    for (int i = 0; i < 4; ++i) {
        grouper.add(static_cast<std::uint16_t>(i + 1),
                    on_queue("broker-a/0", "dev-" + std::to_string(i), "m" + std::to_string(i)),
                    t0);
    }
    CHECK(grouper.has_full());
    CHECK(take_all(grouper, t0) ==
          std::vector<std::vector<std::string>>{{"m0", "m1", "m2", "m3"}});
}

TEST_CASE("a device whose queue changes while its messages are held keeps them in one batch, in order") {
    BatchGrouper grouper(2, 1024 * 1024, milliseconds(5));
    const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);
    grouper.add(1, on_queue("broker-a/1", "dev-a", "a1"), t0);
    grouper.add(2, on_queue("broker-a/2", "dev-b", "b1"), t0);
    // The route changed: dev-a maps to dev-b's queue. Joining b1 would fill
    // that batch, which would then go before the one holding a1.
    grouper.add(3, on_queue("broker-a/2", "dev-a", "a2"), t0);
    // A device whose queue was unknown stays with its held messages too.
    grouper.add(4, ready("alarms", "dev-c", "c1"), t0);
    grouper.add(5, on_queue("broker-a/2", "dev-c", "c2"), t0);
    CHECK(take_all(grouper, t0 + milliseconds(5)) ==
          std::vector<std::vector<std::string>>{{"a1", "a2"}, {"c1", "c2"}, {"b1"}});
}

TEST_CASE("once its batch closed, a device's next message joins its new queue's batch, which goes after") {
    BatchGrouper grouper(2, 1024 * 1024, milliseconds(5));
    const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);
    grouper.add(1, on_queue("broker-a/2", "dev-b", "b1"), t0);  // open, oldest
    grouper.add(2, on_queue("broker-a/1", "dev-a", "a1"), t0 + milliseconds(1));
    grouper.add(3, on_queue("broker-a/1", "dev-a", "a2"), t0 + milliseconds(1));  // full
    grouper.add(4, on_queue("broker-a/2", "dev-a", "a3"), t0 + milliseconds(2));  // b1's batch
    CHECK(take_all(grouper, t0 + milliseconds(10)) ==
          std::vector<std::vector<std::string>>{{"a1", "a2"}, {"b1", "a3"}});
}

TEST_CASE("without a known queue, a batch holds one device's messages of one topic, in arrival order") {
    BatchGrouper grouper(8, 1024 * 1024, milliseconds(5));
    const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);
    grouper.add(1, ready("alarms", "dev-a", "a1"), t0);
    grouper.add(2, ready("alarms", "dev-b", "b1"), t0);
    grouper.add(3, ready("alarms", "dev-a", "a2"), t0);
    grouper.add(4, ready("events", "dev-a", "e1"), t0);
    grouper.add(5, ready("alarms", "dev-a", "a3"), t0);
    CHECK(grouper.held() == 5);
    CHECK_FALSE(grouper.take_due(t0 + milliseconds(4)));  // nothing full, none lingered
    std::map<std::string, std::vector<std::string>> by_first;
    std::vector<std::uint16_t> packet_ids;
    while (std::optional<Batch> batch = grouper.take_due(t0 + milliseconds(5))) {
        by_first[batch->messages.front().out.topic + "/" + batch->messages.front().out.sharding_key] =
            ids(*batch);
        if (batch->messages.front().event_id == "a1") packet_ids = batch->packet_ids;
    }
    CHECK(by_first["alarms/dev-a"] == std::vector<std::string>{"a1", "a2", "a3"});
    CHECK(packet_ids == std::vector<std::uint16_t>{1, 3, 5});
    CHECK(by_first["alarms/dev-b"] == std::vector<std::string>{"b1"});
    CHECK(by_first["events/dev-a"] == std::vector<std::string>{"e1"});
    CHECK(grouper.held() == 0);
    CHECK_FALSE(grouper.next_due());
}

TEST_CASE("a full batch is due at once and goes before the rest of its device's messages") {
    BatchGrouper grouper(2, 1024 * 1024, milliseconds(1000));
    const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);
    grouper.add(1, ready("alarms", "dev-a", "a1"), t0);
    CHECK(grouper.next_due() == t0 + milliseconds(1000));
    grouper.add(2, ready("alarms", "dev-a", "a2"), t0);
    grouper.add(3, ready("alarms", "dev-a", "a3"), t0);
    CHECK(grouper.next_due() <= t0);
    std::optional<Batch> first = grouper.take_due(t0);
    REQUIRE(first);
    CHECK(ids(*first) == std::vector<std::string>{"a1", "a2"});
    CHECK_FALSE(grouper.take_due(t0));  // a3 waits for company or its linger
    std::optional<Batch> second = grouper.take_due(t0 + milliseconds(1000));
    REQUIRE(second);
    CHECK(ids(*second) == std::vector<std::string>{"a3"});
}

TEST_CASE("a message that would overfill its batch's bytes starts the next, and a huge one goes alone") {
    const std::size_t per_message = batch_bytes(ready("t", "d", "x1", 1000).out);
    BatchGrouper grouper(64, 2 * per_message, milliseconds(5));
    const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);
    grouper.add(1, ready("t", "d", "x1", 1000), t0);
    grouper.add(2, ready("t", "d", "x2", 1000), t0);
    grouper.add(3, ready("t", "d", "x3", 1000), t0);       // closes x1, x2
    grouper.add(4, ready("t", "d", "huge", 100000), t0);   // closes x3; alone
    grouper.add(5, ready("t", "d", "x4", 1000), t0);       // closes huge
    std::vector<std::vector<std::string>> batches;
    while (std::optional<Batch> batch = grouper.take_due(t0 + milliseconds(5))) {
        CHECK((batch->bytes <= 2 * per_message || batch->messages.size() == 1));
        batches.push_back(ids(*batch));
    }
    CHECK(batches == std::vector<std::vector<std::string>>{
                         {"x1", "x2"}, {"x3"}, {"huge"}, {"x4"}});
}

TEST_CASE("the grouper knows which eventIds it holds, per gateway, until their batch is taken") {
    BatchGrouper grouper(64, 1024 * 1024, milliseconds(5));
    const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);
    ReadyMessage first = ready("t", "d", "id-1");
    first.gateway_id = "gw-1";
    grouper.add(1, first, t0);
    CHECK(grouper.holds("gw-1", "id-1"));
    CHECK_FALSE(grouper.holds("gw-2", "id-1"));
    REQUIRE(grouper.take_due(Clock::time_point::max()));
    CHECK_FALSE(grouper.holds("gw-1", "id-1"));
}

TEST_CASE("the open batch that waited longest is due first, and clear() drops everything") {
    BatchGrouper grouper(64, 1024 * 1024, milliseconds(5));
    const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);
    grouper.add(1, ready("t", "late", "l1"), t0 + milliseconds(2));
    grouper.add(2, ready("t", "early", "e1"), t0);
    CHECK(grouper.next_due() == t0 + milliseconds(5));
    std::optional<Batch> first = grouper.take_due(t0 + milliseconds(5));
    REQUIRE(first);
    CHECK(ids(*first) == std::vector<std::string>{"e1"});
    CHECK_FALSE(grouper.take_due(t0 + milliseconds(6)));
    CHECK(grouper.next_due() == t0 + milliseconds(7));
    grouper.clear();
    CHECK(grouper.held() == 0);
    CHECK_FALSE(grouper.take_due(t0 + milliseconds(100)));
}
