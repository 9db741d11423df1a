// The bridge's receipt batcher: ids and rejections are grouped per gateway
// topic, sent when a batch is full or its oldest entry waited flush_ms (ids
// and rejections in messages of their own), and a sender that fails only
// costs counted, dropped receipts.
#include "bridge/mqtt/receipt_batcher.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/receipt_contract.h"
#include "eventually.h"

using namespace outpost;
using namespace outpost::bridge;

namespace {

class FailableSender final : public ReceiptSender {
  public:
    Status send(const std::string& topic, const std::string& payload) override {
        std::lock_guard<std::mutex> lock(mutex_);
        if (failing_) return Status::error(StatusCode::kUnavailable, "down");
        auto parsed = std::get<receipt::Receipt>(receipt::parse(payload));
        if (!parsed.rejected.empty()) {
            // Contract C1: a rejection never shares a message with an id.
            if (!parsed.event_ids.empty()) mixed_ = true;
            rejected_.push_back({topic, parsed.rejected});
            return Status::ok();
        }
        sent_.push_back({topic, parsed.event_ids});
        return Status::ok();
    }
    void fail(bool failing) {
        std::lock_guard<std::mutex> lock(mutex_);
        failing_ = failing;
    }
    std::vector<std::pair<std::string, std::vector<std::string>>> sent() {
        std::lock_guard<std::mutex> lock(mutex_);
        return sent_;
    }
    std::vector<std::pair<std::string, std::vector<receipt::Rejection>>> rejected() {
        std::lock_guard<std::mutex> lock(mutex_);
        return rejected_;
    }
    bool mixed() {
        std::lock_guard<std::mutex> lock(mutex_);
        return mixed_;
    }

  private:
    std::mutex mutex_;
    bool failing_ = false;
    bool mixed_ = false;
    std::vector<std::pair<std::string, std::vector<std::string>>> sent_;
    std::vector<std::pair<std::string, std::vector<receipt::Rejection>>> rejected_;
};

std::string id(int n) {
    char text[40];
    std::snprintf(text, sizeof text, "018f0000-0000-7000-8000-%012d", n);
    return text;
}

}  // namespace

TEST_CASE("receipts go to their own gateway's topic, in batches of at most max_ids") {
    FailableSender sender;
    ReceiptsConfig config;
    config.max_ids = 3;
    config.flush_ms = 60000;  // only full batches go out on their own
    ReceiptBatcher batcher(config, sender);
    for (int i = 0; i < 6; ++i) batcher.offer("outpost/a/receipt", id(i));
    batcher.offer("outpost/b/receipt", id(100));
    // The counters move after the sender returns: wait for them, not the sender.
    REQUIRE(outpost::testing::eventually([&] { return batcher.counts().ids_sent == 6; }));
    REQUIRE(sender.sent().size() == 2);
    for (const auto& [topic, ids] : sender.sent()) {
        CHECK(topic == "outpost/a/receipt");
        CHECK(ids.size() == 3);
    }
}

TEST_CASE("a batch that is not full goes out once its oldest id waited flush_ms") {
    FailableSender sender;
    ReceiptsConfig config;
    config.max_ids = 100;
    config.flush_ms = 50;
    ReceiptBatcher batcher(config, sender);
    batcher.offer("outpost/a/receipt", id(1));
    batcher.offer("outpost/b/receipt", id(2));
    REQUIRE(outpost::testing::eventually([&] { return batcher.counts().messages_sent == 2; }));
    CHECK(sender.sent().size() == 2);
}

TEST_CASE("a failing sender and a full queue drop receipts, counted, and never block offer") {
    FailableSender sender;
    sender.fail(true);
    ReceiptsConfig config;
    config.max_ids = 2;
    config.flush_ms = 10;
    config.max_queued = 4;
    {
        ReceiptBatcher batcher(config, sender);
        for (int i = 0; i < 4; ++i) batcher.offer("outpost/a/receipt", id(i));
        REQUIRE(
            outpost::testing::eventually([&] { return batcher.counts().messages_failed == 2; }));
        CHECK(batcher.counts().ids_dropped == 4);
        sender.fail(false);
        batcher.offer("outpost/a/receipt", id(10));
        REQUIRE(outpost::testing::eventually([&] { return batcher.counts().ids_sent == 1; }));
    }
    {
        // Nothing sends (flush far away): the queue bound drops the excess.
        config.flush_ms = 60000;
        config.max_ids = 1000;
        ReceiptBatcher batcher(config, sender);
        for (int i = 0; i < 10; ++i) batcher.offer("outpost/a/receipt", id(i));
        CHECK(batcher.counts().ids_dropped == 6);
        CHECK(batcher.counts().ids_offered == 10);
    }  // the destructor sends what was queued
    CHECK(sender.sent().back().second.size() == 4);
}

TEST_CASE("rejections go to their gateway in messages of their own, never beside confirmations") {
    FailableSender sender;
    ReceiptsConfig config;
    config.max_ids = 3;
    config.flush_ms = 60000;  // only full batches go out on their own
    {
        ReceiptBatcher batcher(config, sender);
        batcher.offer("outpost/a/receipt", id(1));
        for (int i = 10; i < 13; ++i) {
            batcher.offer_rejection("outpost/a/receipt",
                                    receipt::Rejection{id(i), "schema_violation", "bad"});
        }
        // A full slice of rejections goes at once; the lone id waits.
        REQUIRE(outpost::testing::eventually([&] { return sender.rejected().size() == 1; }));
        CHECK(sender.sent().empty());
        CHECK(batcher.counts().rejections_offered == 3);
        batcher.offer_rejection("outpost/b/receipt",
                                receipt::Rejection{id(20), "unmapped_topic", "no rule"});
    }  // the destructor sends what is queued
    CHECK_FALSE(sender.mixed());
    const auto rejected = sender.rejected();
    REQUIRE(rejected.size() == 2);
    CHECK(rejected[0].first == "outpost/a/receipt");
    CHECK(rejected[0].second.size() == 3);
    CHECK(rejected[0].second[0].code == "schema_violation");
    CHECK(rejected[1].first == "outpost/b/receipt");
    CHECK(rejected[1].second[0].event_id == id(20));
    REQUIRE(sender.sent().size() == 1);
    CHECK(sender.sent()[0].second == std::vector<std::string>{id(1)});
}
