// The producer's retry policy, against a scripted name server and two
// scripted brokers on loopback: transient refusals move to another broker,
// permanent ones stop at once, stored-but-not-durable answers count apart,
// and unreachable brokers cost a bounded number of attempts; a batch is
// retried whole, goes to the queue its sharding keys pick, and is split into
// one request per queue when the route (or a retry's avoided broker)
// spreads its keys over several.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rocketmq/producer.h"
#include "rocketmq/properties.h"
#include "rocketmq/queue_selector.h"
#include "rocketmq_scripted_server.h"

namespace {

using namespace std::chrono_literals;
using outpost::StatusCode;
using namespace outpost::rocketmq;
using namespace outpost::rocketmq::testing;

// A broker that answers SEND_MESSAGE with scripted codes (then 0).
struct FakeBroker {
    std::mutex mutex;
    std::deque<int> codes;                  // guarded by mutex
    std::vector<RemotingCommand> received;  // guarded by mutex
    std::unique_ptr<ScriptedServer> server;

    FakeBroker() {
        server = std::make_unique<ScriptedServer>([this](int fd, int) {
            RemotingCommand request;
            while (read_request(fd, &request)) {
                int code = 0;
                std::int64_t offset = 0;
                {
                    std::lock_guard<std::mutex> lock(mutex);
                    if (!codes.empty()) {
                        code = codes.front();
                        codes.pop_front();
                    }
                    received.push_back(request);
                    offset = static_cast<std::int64_t>(received.size());
                }
                write_all(fd, response_frame(request.opaque, code, "",
                                             {{"msgId", "OFFSETID"},
                                              {"queueId", request.ext_fields["queueId"]},
                                              {"queueOffset", std::to_string(offset)}}));
            }
        });
    }
    std::size_t count() {
        std::lock_guard<std::mutex> lock(mutex);
        return received.size();
    }
};

// broker-a and broker-b, with `a_queues` and `b_queues` write queues.
std::string route_json(const std::string& address_a, const std::string& address_b,
                       int a_queues = 4, int b_queues = 4) {
    const auto queues = [](const std::string& broker, int count) {
        return R"({"brokerName":")" + broker + R"(","perm":6,"readQueueNums":)" +
               std::to_string(count) + R"(,"writeQueueNums":)" + std::to_string(count) + "}";
    };
    return R"({"brokerDatas":[)"
           R"({"brokerName":"broker-a","cluster":"c","brokerAddrs":{"0":")" +
           address_a +
           R"("}},)"
           R"({"brokerName":"broker-b","cluster":"c","brokerAddrs":{"0":")" +
           address_b + R"("}}],"queueDatas":[)" + queues("broker-a", a_queues) + "," +
           queues("broker-b", b_queues) + "]}";
}

// A name server that knows only topic "alarms", routed as `route` says when
// each request comes (the test may switch it while the producer runs).
std::unique_ptr<ScriptedServer> switching_name_server(std::shared_ptr<std::string> route,
                                                      std::shared_ptr<std::mutex> guard) {
    return std::make_unique<ScriptedServer>([route, guard](int fd, int) {
        RemotingCommand request;
        while (read_request(fd, &request)) {
            const bool known = request.ext_fields["topic"] == "alarms";
            std::string body;
            if (known) {
                std::lock_guard<std::mutex> lock(*guard);
                body = *route;
            }
            write_all(fd, response_frame(request.opaque, known ? 0 : 17, body));
        }
    });
}

// A name server that knows only topic "alarms".
std::unique_ptr<ScriptedServer> fake_name_server(const std::string& route) {
    return std::make_unique<ScriptedServer>([route](int fd, int) {
        RemotingCommand request;
        while (read_request(fd, &request)) {
            const bool known = request.ext_fields["topic"] == "alarms";
            write_all(fd, response_frame(request.opaque, known ? 0 : 17, known ? route : ""));
        }
    });
}

// Two brokers behind one name server that routes topic "alarms" to both.
struct TwoBrokerCluster {
    FakeBroker a;
    FakeBroker b;
    std::unique_ptr<ScriptedServer> name_server =
        fake_name_server(route_json(a.server->address(), b.server->address()));
};

// A sharding key whose queue (of the 8 in the route) is on broker-a.
std::string key_on_broker_a() {
    for (int i = 0;; ++i) {
        std::string key = "device-" + std::to_string(i);
        if (select_queue_index(key, 8) < 4) {
            return key;
        }
    }
}

ProducerOptions fast_options(const std::string& name_server) {
    ProducerOptions options;
    options.name_server_addresses = name_server;
    options.request_timeout = 1000ms;
    options.initial_backoff = 1ms;
    options.max_backoff = 5ms;
    return options;
}

}  // namespace

TEST_CASE("SYSTEM_BUSY from one broker sends the retry to the other broker") {
    TwoBrokerCluster cluster;
    FakeBroker& a = cluster.a;
    FakeBroker& b = cluster.b;
    a.codes = {2};
    Producer producer(fast_options(cluster.name_server->address()));
    auto receipt = producer.send("alarms", "critical", "evt-1", "{}", key_on_broker_a());
    REQUIRE(receipt.is_ok());
    CHECK(receipt->broker_name == "broker-b");
    CHECK(receipt->attempts == 2);
    CHECK(a.count() == 1);
    CHECK(b.count() == 1);
    CHECK(producer.counters().retries == 1);
    CHECK(producer.counters().sent_ok == 1);
}

TEST_CASE("MESSAGE_ILLEGAL is final: one attempt, kRejected naming the code") {
    TwoBrokerCluster cluster;
    FakeBroker& a = cluster.a;
    FakeBroker& b = cluster.b;
    a.codes = {13};
    Producer producer(fast_options(cluster.name_server->address()));
    std::optional<std::int32_t> error_code;
    auto receipt = producer.send("alarms", "t", "evt-2", "{}", key_on_broker_a(), {}, &error_code);
    REQUIRE_FALSE(receipt.is_ok());
    CHECK(receipt.status().code() == StatusCode::kRejected);
    CHECK(error_code == 13);  // the broker's code, for the bridge's error metrics
    CHECK(receipt.status().message().find("MESSAGE_ILLEGAL") != std::string::npos);
    CHECK(a.count() + b.count() == 1);
    CHECK(producer.counters().failed == 1);
}

TEST_CASE("NO_PERMISSION to a signed send is final: one attempt, kPermissionDenied") {
    TwoBrokerCluster cluster;
    FakeBroker& a = cluster.a;
    FakeBroker& b = cluster.b;
    a.codes = {16};
    ProducerOptions options = fast_options(cluster.name_server->address());
    options.security.credentials = outpost::rocketmq::Credentials{"outpost", "secret"};
    Producer producer(options);
    std::optional<std::int32_t> error_code;
    auto receipt = producer.send("alarms", "t", "evt-4", "{}", key_on_broker_a(), {}, &error_code);
    REQUIRE_FALSE(receipt.is_ok());
    CHECK(receipt.status().code() == StatusCode::kPermissionDenied);  // the caller holds it
    CHECK(error_code == 16);
    CHECK(a.count() + b.count() == 1);  // another broker checks the same identity
    CHECK(producer.counters().retries == 0);
}

TEST_CASE("FLUSH_DISK_TIMEOUT is stored: reported distinctly and counted apart") {
    TwoBrokerCluster cluster;
    FakeBroker& a = cluster.a;
    FakeBroker& b = cluster.b;
    a.codes = {10};
    Producer producer(fast_options(cluster.name_server->address()));
    auto receipt = producer.send("alarms", "t", "evt-3", "{}", key_on_broker_a());
    REQUIRE(receipt.is_ok());
    CHECK(receipt->status == SendStatus::kFlushDiskTimeout);
    CHECK(receipt->response_code == 10);  // the broker's own code, for the bridge's metrics
    CHECK(a.count() == 1);  // never resent
    CHECK(b.count() == 0);
    CHECK(producer.counters().stored_not_durable == 1);
    CHECK(producer.counters().sent_ok == 0);
}

TEST_CASE("one sharding key keeps one queue; the request carries its properties") {
    TwoBrokerCluster cluster;
    FakeBroker& a = cluster.a;
    Producer producer(fast_options(cluster.name_server->address()));
    const std::string key = key_on_broker_a();
    for (int i = 0; i < 20; ++i) {
        REQUIRE(producer.send("alarms", "t", "evt-" + std::to_string(i), "{}", key).is_ok());
    }
    REQUIRE(a.count() == 20);
    std::lock_guard<std::mutex> lock(a.mutex);
    for (const RemotingCommand& request : a.received) {
        CHECK(request.ext_fields.at("queueId") == a.received[0].ext_fields.at("queueId"));
    }
    auto properties = decode_properties(a.received[3].ext_fields.at("properties"));
    REQUIRE(properties.is_ok());
    CHECK(properties->at("KEYS") == "evt-3");
    CHECK(properties->at("WAIT") == "true");
    CHECK(properties->at("UNIQ_KEY").size() == 32);
}

TEST_CASE("unreachable brokers fail with kUnavailable after max_attempts, each refusal at once") {
    std::string dead_a;
    std::string dead_b;
    {
        FakeBroker a;
        FakeBroker b;
        dead_a = a.server->address();
        dead_b = b.server->address();
    }  // both closed: connections are refused
    auto name_server = fake_name_server(route_json(dead_a, dead_b));
    ProducerOptions options = fast_options(name_server->address());
    options.max_attempts = 4;
    // A refused connection fails the attempt by itself: were the producer to
    // wait for an answer instead, this send would not return.
    options.request_timeout = std::chrono::hours(1);
    Producer producer(options);
    std::optional<std::int32_t> error_code = 99;
    auto receipt = producer.send("alarms", "t", "evt", "{}", "device-1", {}, &error_code);
    REQUIRE_FALSE(receipt.is_ok());
    CHECK(receipt.status().code() == StatusCode::kUnavailable);
    CHECK_FALSE(error_code.has_value());  // no answer: no code
    CHECK(receipt.status().message().find("after 4 attempts") != std::string::npos);
    CHECK(producer.counters().retries == 3);
}

TEST_CASE("a bad topic or empty body is refused before any network use") {
    auto name_server = fake_name_server("{}");
    Producer producer(fast_options(name_server->address()));
    auto bad_topic = producer.send("site/1/alarm", "t", "k", "{}", "d");
    REQUIRE_FALSE(bad_topic.is_ok());
    CHECK(bad_topic.status().code() == StatusCode::kInvalidArgument);
    auto empty = producer.send("alarms", "t", "k", "", "d");
    REQUIRE_FALSE(empty.is_ok());
    CHECK(empty.status().code() == StatusCode::kInvalidArgument);
    CHECK(name_server->accepted() == 0);
}

TEST_CASE("an unknown topic with auto creation off fails with kNotFound") {
    auto name_server = fake_name_server("{}");
    ProducerOptions options = fast_options(name_server->address());
    options.auto_create_topics = false;
    Producer producer(options);
    std::optional<std::int32_t> error_code;
    auto receipt = producer.send("unknown_topic", "t", "k", "{}", "d", {}, &error_code);
    REQUIRE_FALSE(receipt.is_ok());
    CHECK(receipt.status().code() == StatusCode::kNotFound);
    CHECK(error_code == 17);  // TOPIC_NOT_EXIST, from the name server
}

TEST_CASE("a batch refused with SYSTEM_BUSY is sent again whole, same ids, to the other broker") {
    TwoBrokerCluster cluster;
    cluster.a.codes = {2};
    Producer producer(fast_options(cluster.name_server->address()));
    auto receipt = producer.send_batch(
        "alarms", {{"critical", "evt-1", "{}"}, {"major", "evt-2", "{}"}, {"minor", "evt-3", "{}"}},
        key_on_broker_a());
    REQUIRE(receipt.is_ok());
    CHECK(receipt->broker_name == "broker-b");
    CHECK(receipt->attempts == 2);
    CHECK(receipt->message_ids.size() == 3);
    REQUIRE(cluster.a.count() == 1);
    REQUIRE(cluster.b.count() == 1);
    const RemotingCommand& first = cluster.a.received[0];
    const RemotingCommand& retry = cluster.b.received[0];
    CHECK(first.code == 320);
    CHECK(retry.code == 320);
    CHECK(retry.body == first.body);  // the same messages, UNIQ_KEYs included
    CHECK(first.ext_fields.at("n") == "broker-a");
    CHECK(retry.ext_fields.at("n") == "broker-b");
    CHECK(producer.counters().retries == 1);
    CHECK(producer.counters().sent_ok == 3);
}

TEST_CASE("a batch beyond its bounds or with an empty body is refused before any network use") {
    auto name_server = fake_name_server("{}");
    ProducerOptions options = fast_options(name_server->address());
    options.max_batch_messages = 2;
    options.max_batch_bytes = 100;
    Producer producer(options);
    auto empty = producer.send_batch("alarms", {}, "d");
    CHECK(empty.status().code() == StatusCode::kInvalidArgument);
    auto too_many =
        producer.send_batch("alarms", {{"t", "k1", "x"}, {"t", "k2", "x"}, {"t", "k3", "x"}}, "d");
    CHECK(too_many.status().code() == StatusCode::kInvalidArgument);
    auto too_big = producer.send_batch("alarms", {{"t", "k", std::string(200, 'x')}}, "d");
    CHECK(too_big.status().code() == StatusCode::kInvalidArgument);
    auto empty_body = producer.send_batch("alarms", {{"t", "k", "x"}, {"t", "k", ""}}, "d");
    CHECK(empty_body.status().code() == StatusCode::kInvalidArgument);
    CHECK(empty_body.status().message().find("batch message 1") != std::string::npos);
    CHECK(name_server->accepted() == 0);
    CHECK(producer.counters().failed == 0);
}

namespace {

// Two sharding keys that pick the same queue index among `same_of` queues,
// below `below` (0: any), and different ones among `different_of` (0: no
// such condition; it must not divide `same_of`).
std::pair<std::string, std::string> keys_sharing_queue(std::size_t same_of,
                                                       std::size_t different_of,
                                                       std::size_t below = 0) {
    for (int i = 0;; ++i) {
        const std::string first = "device-" + std::to_string(i);
        if (below != 0 && select_queue_index(first, same_of) >= below) continue;
        for (int j = i + 1; j < i + 200; ++j) {
            const std::string second = "device-" + std::to_string(j);
            if (select_queue_index(first, same_of) == select_queue_index(second, same_of) &&
                (different_of == 0 ||
                 select_queue_index(first, different_of) !=
                     select_queue_index(second, different_of))) {
                return {first, second};
            }
        }
    }
}

// The bodies a SEND_BATCH_MESSAGE request carries, in order (each is
// "<key>#<n>", unique in these tests).
std::vector<std::string> bodies_in(const RemotingCommand& request,
                                   const std::vector<std::string>& candidates) {
    std::vector<std::pair<std::size_t, std::string>> found;
    for (const std::string& body : candidates) {
        const std::size_t at = request.body.find(body);
        if (at != std::string::npos) found.push_back({at, body});
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> out;
    for (const auto& [at, body] : found) out.push_back(body);
    return out;
}

std::vector<BatchMessage> interleaved(const std::string& first, const std::string& second) {
    return {{"t", "k1", first + "#1", {}, first},
            {"t", "k2", second + "#1", {}, second},
            {"t", "k3", first + "#2", {}, first},
            {"t", "k4", second + "#2", {}, second}};
}

}  // namespace

TEST_CASE("queue_for knows no queue before a route is fetched, then names the one a send picks") {
    TwoBrokerCluster cluster;
    Producer producer(fast_options(cluster.name_server->address()));
    CHECK(producer.queue_for("alarms", "dev-1").status().code() == StatusCode::kNotFound);
    CHECK(producer.queue_for("alarms", "").status().code() == StatusCode::kInvalidArgument);
    auto receipt = producer.send("alarms", "t", "k", "{}", "dev-1");
    REQUIRE(receipt.is_ok());
    auto queue = producer.queue_for("alarms", "dev-1");
    REQUIRE(queue.is_ok());
    CHECK(queue->broker_name == receipt->broker_name);
    FakeBroker& broker = receipt->broker_name == "broker-a" ? cluster.a : cluster.b;
    CHECK(std::to_string(queue->queue_id) == broker.received[0].ext_fields["queueId"]);
}

TEST_CASE("devices whose keys pick one queue share one batch request, each message with its key") {
    TwoBrokerCluster cluster;
    Producer producer(fast_options(cluster.name_server->address()));
    const auto [first, second] = keys_sharing_queue(8, 0);
    REQUIRE(producer.send("alarms", "t", "warm-up", "{}", first).is_ok());  // fetches the route
    auto queue = producer.queue_for("alarms", first);
    REQUIRE(queue.is_ok());
    CHECK(producer.queue_for("alarms", second).value() == *queue);
    auto receipt = producer.send_batch("alarms", interleaved(first, second), "");
    REQUIRE(receipt.is_ok());
    CHECK(receipt->requests == 1);
    CHECK(receipt->message_ids.size() == 4);
    FakeBroker& broker = queue->broker_name == "broker-a" ? cluster.a : cluster.b;
    REQUIRE(broker.count() == 2);
    const RemotingCommand& batch = broker.received[1];
    CHECK(batch.code == 320);
    CHECK(batch.ext_fields.at("e") == std::to_string(queue->queue_id));
    CHECK(bodies_in(batch, {first + "#1", second + "#1", first + "#2", second + "#2"}) ==
          std::vector<std::string>{first + "#1", second + "#1", first + "#2", second + "#2"});
    // Each message keeps its own sharding key.
    const std::string key_property = std::string(kPropertyShardingKey) + '\x01';
    CHECK(batch.body.find(key_property + first) != std::string::npos);
    CHECK(batch.body.find(key_property + second) != std::string::npos);
}

TEST_CASE("a route change that spreads a batch's keys over queues sends one request per queue, each key in order") {
    FakeBroker a;
    FakeBroker b;
    auto guard = std::make_shared<std::mutex>();
    auto route =
        std::make_shared<std::string>(route_json(a.server->address(), b.server->address()));
    auto name_server = switching_name_server(route, guard);
    ProducerOptions options = fast_options(name_server->address());
    options.route_refresh_interval = 0ms;  // every send asks the name server
    Producer producer(options);
    // 8 queues at first (4 + 4), then 6 (broker-b offers 2).
    const auto [first, second] = keys_sharing_queue(8, 6);
    REQUIRE(producer.send("alarms", "t", "warm-up", "{}", first).is_ok());
    REQUIRE(producer.queue_for("alarms", first).value() ==
            producer.queue_for("alarms", second).value());
    {
        std::lock_guard<std::mutex> lock(*guard);
        *route = route_json(a.server->address(), b.server->address(), 4, 2);
    }
    auto receipt = producer.send_batch("alarms", interleaved(first, second), "");
    REQUIRE(receipt.is_ok());
    CHECK(receipt->requests == 2);
    CHECK(receipt->message_ids.size() == 4);
    std::vector<RemotingCommand> batches;
    for (FakeBroker* broker : {&a, &b}) {
        std::lock_guard<std::mutex> lock(broker->mutex);
        for (const RemotingCommand& request : broker->received) {
            if (request.code == 320) batches.push_back(request);
        }
    }
    REQUIRE(batches.size() == 2);
    const std::vector<std::string> all{first + "#1", second + "#1", first + "#2", second + "#2"};
    std::vector<std::vector<std::string>> carried;
    for (const RemotingCommand& batch : batches) carried.push_back(bodies_in(batch, all));
    std::sort(carried.begin(), carried.end());
    std::vector<std::vector<std::string>> expected{{first + "#1", first + "#2"},
                                                   {second + "#1", second + "#2"}};
    std::sort(expected.begin(), expected.end());
    CHECK(carried == expected);
    CHECK(producer.counters().sent_ok == 1 + 4);
}

TEST_CASE("a batch retry that avoids a broker carries the keys that pick its queue; the rest go on alone") {
    // broker-a offers 4 queues, broker-b 3: both keys on one queue of
    // broker-a among all 7, apart among broker-b's 3.
    struct {
        FakeBroker a;
        FakeBroker b;
    } cluster;
    auto name_server = fake_name_server(route_json(cluster.a.server->address(),
                                                   cluster.b.server->address(), 4, 3));
    const auto [first, second] = keys_sharing_queue(7, 3, 4);
    Producer producer(fast_options(name_server->address()));
    REQUIRE(producer.send("alarms", "t", "warm-up", "{}", "other").is_ok());
    const std::size_t warm_a = cluster.a.count();
    const std::size_t warm_b = cluster.b.count();
    cluster.a.codes = {2};  // SYSTEM_BUSY: the retry avoids broker-a
    auto receipt = producer.send_batch("alarms", interleaved(first, second), "");
    REQUIRE(receipt.is_ok());
    CHECK(receipt->requests == 2);
    const std::vector<std::string> all{first + "#1", second + "#1", first + "#2", second + "#2"};
    // broker-a: the whole batch, refused; then `second`'s own request, whose
    // first attempt goes to its queue as a send of it alone would.
    REQUIRE(cluster.a.count() == warm_a + 2);
    CHECK(bodies_in(cluster.a.received[warm_a], all) == all);
    CHECK(bodies_in(cluster.a.received[warm_a + 1], all) ==
          std::vector<std::string>{second + "#1", second + "#2"});
    CHECK(cluster.a.received[warm_a + 1].ext_fields.at("e") ==
          cluster.a.received[warm_a].ext_fields.at("e"));
    // broker-b: the retry, with only `first`, on the queue its key picks there.
    REQUIRE(cluster.b.count() == warm_b + 1);
    const RemotingCommand& retry = cluster.b.received[warm_b];
    CHECK(bodies_in(retry, all) == std::vector<std::string>{first + "#1", first + "#2"});
    CHECK(retry.ext_fields.at("e") == std::to_string(select_queue_index(first, 3)));
    CHECK(producer.counters().sent_ok == 1 + 4);
}
