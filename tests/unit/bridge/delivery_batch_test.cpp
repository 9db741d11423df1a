// The batched path's Delivery steps against a scripted sink: what prepare()
// settles alone and which queue it names, that a batch (of one device or of
// several sharing a queue) goes to send_batch at once and is acknowledged
// only after its SEND_OK, resent whole while RocketMQ fails, and split into
// single sends (quarantining the culprit) when RocketMQ refuses it for good.
#include <catch2/catch.hpp>
#include <string>
#include <variant>
#include <vector>

#include "bridge/delivery.h"
#include "bridge/mqtt/receipt_batcher.h"
#include "delivery_fixtures.h"
#include "sample_envelope.h"

using namespace outpost::bridge;
using outpost::Status;
using outpost::StatusCode;
using outpost::testing::new_event_id;

namespace {

// Takes every receipt batch without looking at it.
class DiscardingSender final : public ReceiptSender {
  public:
    Status send(const std::string&, const std::string&) override { return Status::ok(); }
};

// prepare() for `count` alarms of `device`, each of which must come back ready.
std::vector<ReadyMessage> ready_alarms(Harness& h, const std::string& device, int count,
                                       std::vector<std::string>* ids = nullptr) {
    std::vector<ReadyMessage> batch;
    for (int i = 0; i < count; ++i) {
        const std::string id = new_event_id();
        if (ids != nullptr) ids->push_back(id);
        auto prepared = h.delivery->prepare(alarm("gw-1", device, i + 1, id));
        REQUIRE(std::holds_alternative<ReadyMessage>(prepared));
        batch.push_back(std::get<ReadyMessage>(std::move(prepared)));
    }
    return batch;
}

}  // namespace

TEST_CASE("a ready batch is one request, then each message is forwarded, remembered and confirmed") {
    Harness h;
    DiscardingSender sender;
    ReceiptBatcher receipts(h.config.receipts, sender);
    h.delivery->attach_receipts(receipts);
    std::vector<std::string> ids;
    const std::vector<ReadyMessage> batch = ready_alarms(h, "dev-7", 3, &ids);
    CHECK(h.sink.sent.empty());  // prepare() sends nothing for a valid alarm
    CHECK(h.delivery->forward_batch(batch) == std::vector<Verdict>(3, Verdict::kForwarded));
    REQUIRE(h.sink.batches.size() == 1);
    REQUIRE(h.sink.batches[0].size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(h.sink.batches[0][i].keys == ids[i]);  // arrival order
        CHECK(h.sink.batches[0][i].sharding_key == "dev-7");
        CHECK(h.sink.batches[0][i].topic == "outpost_alarms");
    }
    CHECK(h.stats.forwarded() == 3);
    CHECK(h.stats.figures().batches == 1);
    CHECK(h.stats.figures().batched == 3);
    CHECK(receipts.counts().ids_offered == 3);
    // A redelivery of a stored one is settled by prepare() without a send.
    auto again = h.delivery->prepare(alarm("gw-1", "dev-7", 1, ids[0]));
    REQUIRE(std::holds_alternative<Verdict>(again));
    CHECK(std::get<Verdict>(again) == Verdict::kDuplicate);
    CHECK(receipts.counts().ids_offered == 4);
    CHECK(h.sink.sent.size() == 3);
}

TEST_CASE("a second copy of a held message is a duplicate once the first is stored, else sent") {
    Harness h;
    std::vector<std::string> ids;
    const std::vector<ReadyMessage> batch = ready_alarms(h, "dev-1", 1, &ids);
    auto copy = h.delivery->prepare(alarm("gw-1", "dev-1", 1, ids[0]));  // first not sent yet
    REQUIRE(std::holds_alternative<ReadyMessage>(copy));
    auto before = h.delivery->check_again(std::get<ReadyMessage>(copy));
    CHECK(std::holds_alternative<ReadyMessage>(before));
    CHECK(h.delivery->forward_batch(batch) == std::vector<Verdict>{Verdict::kForwarded});
    auto after = h.delivery->check_again(std::get<ReadyMessage>(std::move(copy)));
    REQUIRE(std::holds_alternative<Verdict>(after));
    CHECK(std::get<Verdict>(after) == Verdict::kDuplicate);
    CHECK(h.stats.figures().duplicates == 1);
    CHECK(h.sink.sent.size() == 1);
}

TEST_CASE("prepare() quarantines an invalid message alone and hands back nothing to batch") {
    Harness h;
    InboundMessage bad;
    bad.topic = outpost::testing::alarm_topic("gw-1", "dev-1");
    bad.payload = "{";
    auto prepared = h.delivery->prepare(bad);
    REQUIRE(std::holds_alternative<Verdict>(prepared));
    CHECK(std::get<Verdict>(prepared) == Verdict::kQuarantined);
    REQUIRE(h.sink.sent.size() == 1);
    CHECK(h.sink.batches.empty());
    CHECK(h.sink.sent[0].topic == "outpost_quarantine");
    CHECK(h.stats.figures().received == 1);
}

TEST_CASE("a failed batch is resent whole until SEND_OK, and nothing is forwarded before it") {
    Harness h;
    h.sink.script = {unavailable(), unavailable()};
    const std::vector<ReadyMessage> batch = ready_alarms(h, "dev-1", 4);
    CHECK(h.delivery->forward_batch(batch) == std::vector<Verdict>(4, Verdict::kForwarded));
    REQUIRE(h.sink.batches.size() == 3);
    for (const auto& sent : h.sink.batches) {
        REQUIRE(sent.size() == 4);
        for (std::size_t i = 0; i < 4; ++i) CHECK(sent[i].keys == batch[i].event_id);
    }
    CHECK(h.stats.forwarded() == 4);
    CHECK(h.stats.figures().rocketmq_errors_total == 2);
}

TEST_CASE("a stop while a batch fails leaves every message of it unacknowledged") {
    Harness h;
    for (int i = 0; i < 100; ++i) h.sink.script.push_back(unavailable());
    h.sink.on_send = [&h](std::size_t) {
        if (h.sink.batches.size() == 2) h.stop.request_stop();
    };
    const std::vector<ReadyMessage> batch = ready_alarms(h, "dev-1", 3);
    CHECK(h.delivery->forward_batch(batch) == std::vector<Verdict>(3, Verdict::kStopped));
    CHECK(h.stats.forwarded() == 0);
    CHECK(h.stats.figures().batches == 0);
}

TEST_CASE("a refused identity holds the batch without resending or splitting it, until stop") {
    Harness h;
    h.sink.script = {Status::error(StatusCode::kPermissionDenied, "NO_PERMISSION (16)")};
    const std::vector<ReadyMessage> batch = ready_alarms(h, "dev-1", 2);
    CHECK(h.delivery->forward_batch(batch) == std::vector<Verdict>(2, Verdict::kStopped));
    CHECK(h.sink.batches.size() == 1);
    CHECK(h.sink.sent.size() == 2);
    CHECK(h.stats.quarantined() == 0);
}

TEST_CASE("a batch refused for one message's sake is sent one by one: only that one is quarantined") {
    Harness h;
    // The batch, then message 1 (OK), message 2 (refused), its quarantine
    // copy (OK), message 3 (OK).
    h.sink.script = {Status::error(StatusCode::kRejected, "MESSAGE_ILLEGAL (13)"), Status::ok(),
                     Status::error(StatusCode::kRejected, "MESSAGE_ILLEGAL (13)")};
    const std::vector<ReadyMessage> batch = ready_alarms(h, "dev-1", 3);
    CHECK(h.delivery->forward_batch(batch) ==
          std::vector<Verdict>{Verdict::kForwarded, Verdict::kQuarantined, Verdict::kForwarded});
    REQUIRE(h.sink.batches.size() == 1);
    REQUIRE(h.sink.sent.size() == 3 + 4);
    CHECK(h.sink.sent[3].keys == batch[0].event_id);
    CHECK(h.sink.sent[4].keys == batch[1].event_id);
    CHECK(h.sink.sent[5].topic == "outpost_quarantine");
    CHECK(h.sink.sent[5].tags == "rocketmq_rejected");
    CHECK(h.sink.sent[6].keys == batch[2].event_id);
    CHECK(h.stats.forwarded() == 2);
    CHECK(h.stats.quarantined() == 1);
    CHECK(h.stats.figures().batches == 0);
}

TEST_CASE("after a message held at a stop in the one-by-one sends, none after it is sent") {
    Harness h;
    h.sink.script = {Status::error(StatusCode::kInvalidArgument, "message 2 too large")};
    for (int i = 0; i < 100; ++i) h.sink.script.push_back(unavailable());
    h.sink.on_send = [&h](std::size_t sends) {
        if (sends == 3 + 1) h.stop.request_stop();  // message 1, sent alone, fails
    };
    const std::vector<ReadyMessage> batch = ready_alarms(h, "dev-1", 3);
    CHECK(h.delivery->forward_batch(batch) == std::vector<Verdict>(3, Verdict::kStopped));
    CHECK(h.sink.sent.size() == 3 + 1);  // the batch, then message 1 once; nothing of 2 or 3
}

TEST_CASE("prepare() names the queue the sink maps the device to, or none when the sink cannot tell") {
    Harness h;
    h.sink.queues = {{"dev-1", "broker-a/3"}};
    const std::vector<ReadyMessage> known = ready_alarms(h, "dev-1", 1);
    CHECK(known[0].queue == "broker-a/3");
    const std::vector<ReadyMessage> unknown = ready_alarms(h, "dev-2", 1);
    CHECK(unknown[0].queue.empty());
}

TEST_CASE("a batch of several devices goes to the sink at once, each message with its own device") {
    Harness h;
    DiscardingSender sender;
    ReceiptBatcher receipts(h.config.receipts, sender);
    h.delivery->attach_receipts(receipts);
    std::vector<ReadyMessage> batch = ready_alarms(h, "dev-1", 2);
    std::vector<ReadyMessage> other = ready_alarms(h, "dev-2", 2);
    batch.insert(batch.begin() + 1, other[0]);
    batch.push_back(other[1]);  // dev-1, dev-2, dev-1, dev-2
    CHECK(h.delivery->forward_batch(batch) == std::vector<Verdict>(4, Verdict::kForwarded));
    REQUIRE(h.sink.batches.size() == 1);
    REQUIRE(h.sink.batches[0].size() == 4);
    const std::vector<std::string> devices{"dev-1", "dev-2", "dev-1", "dev-2"};
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(h.sink.batches[0][i].sharding_key == devices[i]);
        CHECK(h.sink.batches[0][i].keys == batch[i].event_id);
    }
    CHECK(h.stats.forwarded() == 4);
    CHECK(receipts.counts().ids_offered == 4);
}

TEST_CASE("a batch of several devices refused for one message's sake forwards the others one by one") {
    Harness h;
    // The batch, then dev-1's message (OK), dev-2's (refused), its
    // quarantine copy (OK), dev-1's second (OK).
    h.sink.script = {Status::error(StatusCode::kRejected, "MESSAGE_ILLEGAL (13)"), Status::ok(),
                     Status::error(StatusCode::kRejected, "MESSAGE_ILLEGAL (13)")};
    std::vector<ReadyMessage> batch = ready_alarms(h, "dev-1", 2);
    batch.insert(batch.begin() + 1, ready_alarms(h, "dev-2", 1)[0]);
    CHECK(h.delivery->forward_batch(batch) ==
          std::vector<Verdict>{Verdict::kForwarded, Verdict::kQuarantined, Verdict::kForwarded});
    REQUIRE(h.sink.sent.size() == 3 + 4);
    CHECK(h.sink.sent[4].sharding_key == "dev-2");
    CHECK(h.sink.sent[5].topic == "outpost_quarantine");
    CHECK(h.sink.sent[6].keys == batch[2].event_id);
    CHECK(h.stats.forwarded() == 2);
    CHECK(h.stats.quarantined() == 1);
}
