// One device's events always map to one queue, the mapping is the same in
// every process and build, and the queue list from a route is deterministic.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "rocketmq/queue_selector.h"
#include "rocketmq/route.h"

using outpost::rocketmq::MessageQueue;
using outpost::rocketmq::parse_topic_route;
using outpost::rocketmq::select_queue_index;
using outpost::rocketmq::stable_hash;

TEST_CASE("the sharding hash is pinned (FNV-1a 64), so restarts keep the queue") {
    CHECK(stable_hash("") == 14695981039346656037ull);
    CHECK(stable_hash("a") == 0xaf63dc4c8601ec8cull);
    CHECK(stable_hash("foobar") == 0x85944171f73967e8ull);
}

TEST_CASE("the same device always gets the same queue index") {
    int unstable = 0;
    for (int device = 0; device < 200; ++device) {
        const std::string key = "device-" + std::to_string(device);
        const std::size_t first = select_queue_index(key, 8);
        for (int repeat = 0; repeat < 5; ++repeat) {
            unstable += select_queue_index(key, 8) == first && first < 8 ? 0 : 1;
        }
    }
    CHECK(unstable == 0);
}

TEST_CASE("many devices spread over all queues") {
    std::vector<int> per_queue(8, 0);
    for (int device = 0; device < 8000; ++device) {
        ++per_queue[select_queue_index("gw-" + std::to_string(device), 8)];
    }
    for (int count : per_queue) {
        CHECK(count > 800);  // 1000 expected
        CHECK(count < 1200);
    }
}

TEST_CASE("write queues come sorted by broker then id, whatever the route order") {
    const char* route_json = R"({
        "brokerDatas":[
          {"brokerName":"b","cluster":"c","brokerAddrs":{"0":"127.0.0.1:2"}},
          {"brokerName":"a","cluster":"c","brokerAddrs":{"0":"127.0.0.1:1","1":"127.0.0.1:9"}},
          {"brokerName":"slave-only","cluster":"c","brokerAddrs":{"1":"127.0.0.1:3"}}],
        "queueDatas":[
          {"brokerName":"b","perm":6,"readQueueNums":2,"writeQueueNums":2},
          {"brokerName":"readonly","perm":4,"readQueueNums":4,"writeQueueNums":4},
          {"brokerName":"slave-only","perm":6,"readQueueNums":4,"writeQueueNums":4},
          {"brokerName":"a","perm":6,"readQueueNums":3,"writeQueueNums":3}]})";
    auto route = parse_topic_route(route_json);
    REQUIRE(route.is_ok());
    std::vector<MessageQueue> expected = {{"a", 0}, {"a", 1}, {"a", 2}, {"b", 0}, {"b", 1}};
    CHECK(route->write_queues() == expected);
    CHECK(route->master_address("a") == "127.0.0.1:1");
    CHECK(route->master_address("slave-only").empty());
}

TEST_CASE("a route body that is not JSON or lacks broker names is an error") {
    CHECK_FALSE(parse_topic_route("{brokerDatas:[{0:1}]}").is_ok());
    // Nesting beyond the limit is refused while parsing, not built first.
    auto deep = parse_topic_route(R"({"brokerDatas":)" + std::string(500000, '[') +
                                  std::string(500000, ']') + "}");
    REQUIRE_FALSE(deep.is_ok());
    CHECK(deep.status().message().find("deeper than 16") != std::string::npos);
    CHECK_FALSE(parse_topic_route(R"({"brokerDatas":[{"cluster":"c"}]})").is_ok());
    CHECK_FALSE(parse_topic_route(R"({"queueDatas":[7]})").is_ok());
    auto empty = parse_topic_route("{}");
    REQUIRE(empty.is_ok());
    CHECK(empty->write_queues().empty());
}

// Found by fuzz/rocketmq_route.cpp: writeQueueNums 2147483647 made
// write_queues() build two billion queues (the producer ran out of memory
// on one answer), and a broker named twice listed its queues twice, in an
// order that depended on the answer's.
TEST_CASE("a route with absurd queue counts or a broker named twice is refused") {
    auto huge = parse_topic_route(R"({
        "brokerDatas":[{"brokerName":"a","brokerAddrs":{"0":"127.0.0.1:1"}}],
        "queueDatas":[{"brokerName":"a","perm":6,"writeQueueNums":2147483647}]})");
    REQUIRE_FALSE(huge.is_ok());
    CHECK(huge.status().message().find("writeQueueNums") != std::string::npos);
    CHECK_FALSE(
        parse_topic_route(R"({"queueDatas":[{"brokerName":"a","readQueueNums":100000}]})").is_ok());
    auto twice = parse_topic_route(R"({
        "brokerDatas":[{"brokerName":"a","brokerAddrs":{"0":"127.0.0.1:1"}}],
        "queueDatas":[{"brokerName":"a","perm":6,"writeQueueNums":2},
                      {"brokerName":"a","perm":6,"writeQueueNums":1}]})");
    REQUIRE_FALSE(twice.is_ok());
    CHECK(twice.status().message().find("\"a\"") != std::string::npos);
    CHECK_FALSE(
        parse_topic_route(R"({"brokerDatas":[{"brokerName":"a"},{"brokerName":"a"}]})").is_ok());
    auto largest = parse_topic_route(R"({
        "brokerDatas":[{"brokerName":"a","brokerAddrs":{"0":"127.0.0.1:1"}}],
        "queueDatas":[{"brokerName":"a","perm":6,"writeQueueNums":1024}]})");
    REQUIRE(largest.is_ok());
    CHECK(largest->write_queues().size() == 1024);
}
