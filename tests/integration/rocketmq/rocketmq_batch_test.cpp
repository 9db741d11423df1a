// Producer::send_batch against a real RocketMQ name server + broker started
// by scripts/rocketmq.sh. What the broker stored is read back from outside
// our code with mqadmin printMsgByQueue (a pull of the queue). Where a batch
// must not have been stored, a single send with the same sharding key before
// and after shows the queue's offsets moved by that one message only.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "rocketmq/crc32.h"
#include "rocketmq/producer.h"
#include "rocketmq_it.h"

namespace {

using namespace std::chrono_literals;
using outpost::StatusCode;
using namespace outpost::rocketmq;
using namespace outpost::testing;

// The lines of `mqadmin printMsgByQueue` for one queue, with bodies: one
// "MSGID: ... MessageExt [...queueOffset=N, ... bodyCRC=C, ...
// properties={...}...] BODY: ..." line per stored message.
std::vector<std::string> stored_messages(const std::string& topic, const std::string& broker,
                                         std::int32_t queue_id, std::size_t expect) {
    std::vector<std::string> lines;
    for (int attempt = 0; attempt < 10; ++attempt) {
        lines.clear();
        std::istringstream output(mqadmin("printMsgByQueue -t " + topic + " -a " + broker + " -i " +
                                          std::to_string(queue_id) + " -p true -d true"));
        for (std::string line; std::getline(output, line);) {
            if (line.rfind("MSGID:", 0) == 0) lines.push_back(line);
        }
        if (lines.size() >= expect) break;
        std::this_thread::sleep_for(1s);
    }
    return lines;
}

// The stored line of the message whose UNIQ_KEY is `id`; "" when none.
std::string line_of(const std::vector<std::string>& lines, const std::string& id) {
    for (const std::string& line : lines) {
        if (line.find("UNIQ_KEY=" + id) != std::string::npos) return line;
    }
    return "";
}

bool has(const std::string& line, const std::string& text) {
    return line.find(text) != std::string::npos;
}

std::vector<BatchMessage> numbered_batch(int count, const std::string& stem,
                                         std::size_t body_bytes = 0) {
    std::vector<BatchMessage> batch;
    for (int i = 0; i < count; ++i) {
        const std::string n = std::to_string(i);
        std::string body = body_bytes == 0 ? "{\"n\":" + n + "}" : std::string(body_bytes, 'b');
        batch.push_back(BatchMessage{"tag" + n,
                                     stem + "-" + n + " " + stem + "-alt" + n,
                                     std::move(body),
                                     {{"seq", n}, {"site", "north"}}});
    }
    return batch;
}

}  // namespace

TEST_CASE("a batch for one key is stored on that key's queue, in order, each message intact") {
    const std::string topic = create_fresh_topic("it_batch", 4);
    Producer producer(test_producer_options());
    const std::string device = "gw-batch-" + run_id();
    auto before = producer.send(topic, "single", "before-" + run_id(), "before", device);
    REQUIRE(before.is_ok());

    const int count = 8;
    const std::string stem = "bk" + run_id();
    const std::vector<BatchMessage> batch = numbered_batch(count, stem);
    auto receipt = producer.send_batch(topic, batch, device);
    REQUIRE(receipt.is_ok());
    CHECK(receipt->status == SendStatus::kSendOk);
    CHECK(receipt->attempts == 1);
    CHECK(receipt->queue_id == before->queue_id);  // the key's queue, as for a single send
    CHECK(receipt->queue_offset == before->queue_offset + 1);
    REQUIRE(receipt->message_ids.size() == static_cast<std::size_t>(count));
    CHECK(receipt->offset_message_ids.size() == static_cast<std::size_t>(count));

    auto after = producer.send(topic, "single", "after-" + run_id(), "after", device);
    REQUIRE(after.is_ok());
    CHECK(after->queue_id == before->queue_id);
    CHECK(after->queue_offset == receipt->queue_offset + count);
    CHECK(producer.counters().sent_ok == static_cast<std::uint64_t>(count + 2));

    const std::vector<std::string> lines =
        stored_messages(topic, receipt->broker_name, receipt->queue_id, count + 2);
    CHECK(lines.size() == static_cast<std::size_t>(count + 2));
    for (int i = 0; i < count; ++i) {
        const std::string n = std::to_string(i);
        const std::string line = line_of(lines, receipt->message_ids[i]);
        INFO("message " << i << ": " << line);
        REQUIRE_FALSE(line.empty());
        CHECK(has(line, "queueOffset=" + std::to_string(receipt->queue_offset + i) + ","));
        CHECK(has(line, "msgId=" + receipt->offset_message_ids[i]));
        CHECK(has(line, "KEYS=" + stem + "-" + n + " " + stem + "-alt" + n));
        CHECK(has(line, "TAGS=tag" + n));
        CHECK(has(line, "seq=" + n));
        CHECK(has(line, "site=north"));
        CHECK(has(line, "__SHARDINGKEY=" + device));
        CHECK(has(line, "bodyCRC=" + std::to_string(rocketmq_body_crc(batch[i].body)) + ","));
        CHECK(has(line, "BODY: " + batch[i].body));
    }
    // The index serves each message's keys, as for single sends.
    const std::string found = query_by_key(topic, stem + "-alt5", receipt->message_ids[5]);
    INFO("mqadmin output: " << one_line(found));
    CHECK(has(found, receipt->message_ids[5]));
}

TEST_CASE("a batch over the byte bound is refused before sending, and nothing of it is stored") {
    const std::string topic = create_fresh_topic("it_batch_bound", 4);
    Producer producer(test_producer_options());
    const std::string device = "gw-bound-" + run_id();
    auto before = producer.send(topic, "t", "b-" + run_id(), "x", device);
    REQUIRE(before.is_ok());

    // Two 3 MiB bodies: each is a valid message, together beyond 4 MiB.
    auto refused = producer.send_batch(topic, numbered_batch(2, "over", 3u << 20), device);
    REQUIRE_FALSE(refused.is_ok());
    INFO(refused.status().to_string());
    CHECK(refused.status().code() == StatusCode::kInvalidArgument);
    CHECK(has(refused.status().message(), std::to_string(4u << 20) + " bytes"));
    CHECK(has(refused.status().message(), "nothing was sent"));

    ProducerOptions few = test_producer_options();
    few.max_batch_messages = 4;
    Producer bounded(few);
    auto too_many = bounded.send_batch(topic, numbered_batch(5, "many"), device);
    CHECK(too_many.status().code() == StatusCode::kInvalidArgument);
    CHECK(has(too_many.status().message(), "max_batch_messages"));

    auto after = producer.send(topic, "t", "a-" + run_id(), "x", device);
    REQUIRE(after.is_ok());
    CHECK(after->queue_offset == before->queue_offset + 1);
    CHECK(producer.counters().retries == 0);
}

TEST_CASE("a batch the broker finds beyond its maxMessageSize is refused whole") {
    const std::string topic = create_fresh_topic("it_batch_broker_bound", 4);
    ProducerOptions lax = test_producer_options();
    lax.max_batch_bytes = 8u << 20;  // above the broker's 4 MiB: the broker decides
    lax.max_attempts = 2;
    lax.initial_backoff = 50ms;
    Producer producer(lax);
    const std::string device = "gw-broker-bound-" + run_id();
    auto before = producer.send(topic, "t", "b-" + run_id(), "x", device);
    REQUIRE(before.is_ok());

    std::optional<std::int32_t> code;
    auto refused = producer.send_batch(topic, numbered_batch(2, "big", 5u << 19), device, &code);
    REQUIRE_FALSE(refused.is_ok());
    INFO(refused.status().to_string());
    // RocketMQ 5.3 answers SYSTEM_ERROR, which the producer retries as it
    // retries any SYSTEM_ERROR; every attempt is refused alike.
    CHECK(code == std::optional<std::int32_t>(1));
    CHECK(has(refused.status().message(), "message body size exceeded"));
    CHECK(has(refused.status().message(), "batch of 2 messages"));
    CHECK(has(refused.status().message(), "failed after 2 attempts"));

    auto after = producer.send(topic, "t", "a-" + run_id(), "x", device);
    REQUIRE(after.is_ok());
    CHECK(after->queue_offset == before->queue_offset + 1);
}

TEST_CASE("a batch to a stopped broker is retried whole, fails clearly, and batches resume") {
    const std::string topic = create_fresh_topic("it_batch_restart", 4);
    Producer producer(fast_failing_producer_options(3));
    const std::string device = "gw-restart-" + run_id();
    REQUIRE(producer.send_batch(topic, numbered_batch(4, "pre"), device).is_ok());

    const std::string stopped = rocketmq_script("stop-broker " + rocketmq_env()["ROCKETMQ_DIR"]);
    INFO("stop-broker: " << one_line(stopped));
    std::optional<std::int32_t> code;
    auto during = producer.send_batch(topic, numbered_batch(4, "during"), device, &code);
    REQUIRE_FALSE(during.is_ok());
    INFO(during.status().to_string());
    CHECK((during.status().code() == StatusCode::kUnavailable ||
           during.status().code() == StatusCode::kTimeout));
    CHECK(has(during.status().message(), "failed after 3 attempts"));
    CHECK(has(during.status().message(), "batch of 4 messages"));
    CHECK_FALSE(code.has_value());  // nobody answered
    CHECK(producer.counters().retries == 2);
    CHECK(producer.counters().failed == 4);

    const std::string started = rocketmq_script("start-broker " + rocketmq_env()["ROCKETMQ_DIR"]);
    INFO("start-broker: " << one_line(started));
    bool resumed = false;
    for (int i = 0; i < 60 && !resumed; ++i) {
        resumed = producer.send_batch(topic, numbered_batch(4, "post"), device).is_ok();
        if (!resumed) std::this_thread::sleep_for(1s);
    }
    CHECK(resumed);
}

int main(int argc, char* argv[]) {
    return run_rocketmq_tests(argc, argv);
}
