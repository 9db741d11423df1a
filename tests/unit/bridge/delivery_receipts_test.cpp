// Receipts from the delivery pipeline as the bridge runs it:
// several MQTT session threads deliver at once, the receipt batcher's own
// thread sends, and a status thread reads the figures (with the receipt
// source set before it starts, as main.cpp does). Every kForwarded and every
// kDuplicate verdict offers one receipt to its own gateway's topic.
//
// In the TSan run (scripts/sanitize tsan): Delivery::confirm on the duplicate
// path runs under the delivery lock while the batcher flushes, and
// BridgeStats reads receipt_source_ without its lock (set before readers).
#include <atomic>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bridge/delivery.h"
#include "bridge/mqtt/receipt_batcher.h"
#include "common/receipt_contract.h"
#include "sample_envelope.h"
#include "send_each_sink.h"

using namespace outpost;
using namespace outpost::bridge;
using outpost::testing::alarm_topic;
using outpost::testing::new_event_id;
using outpost::testing::sample_envelope_text;

namespace {

// RocketMQ that stores everything: SEND_OK for each send, from any thread.
class CountingSink final : public SendEachSink {
  public:
    Status send(const SinkMessage& message,
                std::optional<std::int32_t>* /*response_code*/) override {
        std::lock_guard<std::mutex> lock(mutex_);
        ++sends_[message.keys];
        return Status::ok();
    }
    std::map<std::string, int> sends() {
        std::lock_guard<std::mutex> lock(mutex_);
        return sends_;
    }

  private:
    std::mutex mutex_;
    std::map<std::string, int> sends_;  // by KEYS (eventId)
};

// The MQTT side of receipts: records every id of every receipt by topic.
class ReceiptCounter final : public ReceiptSender {
  public:
    Status send(const std::string& topic, const std::string& payload) override {
        auto ids = std::get<receipt::Receipt>(receipt::parse(payload)).event_ids;
        std::lock_guard<std::mutex> lock(mutex_);
        for (const std::string& id : ids) ++receipts_[{topic, id}];
        return Status::ok();
    }
    std::map<std::pair<std::string, std::string>, int> receipts() {
        std::lock_guard<std::mutex> lock(mutex_);
        return receipts_;
    }

  private:
    std::mutex mutex_;
    std::map<std::pair<std::string, std::string>, int> receipts_;  // (topic, eventId) -> times
};

BridgeConfig receipts_config() {
    BridgeConfig config;
    config.mqtt.endpoint.uri = "tcp://127.0.0.1:1883";
    config.mqtt.endpoint.client_id = "bridge-test";
    config.rocketmq.name_servers = "127.0.0.1:9876";
    config.mapping = {{"outpost/+/alarm/+", "outpost_alarms", "${payload.severity}"}};
    config.quarantine_topic = "outpost_quarantine";
    config.receipts.max_ids = 7;  // many small batches: the batcher flushes while sessions offer
    return config;
}

struct Incoming {
    InboundMessage message;
    std::string event_id;
    std::string receipt_topic;
};

constexpr int kSessions = 4;
constexpr int kAlarmsPerSession = 40;

// Session s's alarms, from gateways gw-0..gw-2, each with its own eventId.
std::vector<std::vector<Incoming>> session_alarms(int gateway_level) {
    std::vector<std::vector<Incoming>> sessions(kSessions);
    for (int s = 0; s < kSessions; ++s) {
        for (int i = 0; i < kAlarmsPerSession; ++i) {
            const std::string gateway = "gw-" + std::to_string(i % 3);
            const std::string device = "dev-" + std::to_string(s);
            Incoming alarm;
            alarm.event_id = new_event_id();
            alarm.message.topic = alarm_topic(gateway, device);
            alarm.message.payload = sample_envelope_text(gateway, device, i + 1, alarm.event_id);
            alarm.receipt_topic = *receipt::topic_for_event(alarm.message.topic, gateway_level);
            sessions[s].push_back(std::move(alarm));
        }
    }
    return sessions;
}

// Each session thread delivers alarms_of(s) and records its verdicts.
void deliver_concurrently(Delivery& delivery,
                          const std::function<const std::vector<Incoming>&(int)>& alarms_of,
                          std::map<Verdict, int>* verdicts) {
    std::mutex mutex;
    std::vector<std::thread> sessions;
    for (int s = 0; s < kSessions; ++s) {
        sessions.emplace_back([&, s] {
            for (const Incoming& alarm : alarms_of(s)) {
                const Verdict verdict = delivery.deliver(alarm.message);
                std::lock_guard<std::mutex> lock(mutex);
                ++(*verdicts)[verdict];
            }
        });
    }
    for (std::thread& session : sessions) session.join();
}

}  // namespace

TEST_CASE(
    "concurrent sessions offer one receipt per forwarded and per duplicate alarm, to its gateway") {
    const BridgeConfig config = receipts_config();
    const std::vector<std::vector<Incoming>> alarms = session_alarms(config.identity.gateway_level);
    CountingSink sink;
    ReceiptCounter sender;
    BridgeStats stats;
    StopSignal stop;
    std::map<Verdict, int> first;
    std::map<Verdict, int> again;
    std::int64_t offered_seen_by_status = 0;
    BridgeFigures after;
    {
        ReceiptBatcher receipts(config.receipts, sender);
        auto created = Delivery::create(config, sink, stats, stop);
        REQUIRE(created.is_ok());
        Delivery& delivery = *created.value();
        delivery.attach_receipts(receipts);
        stats.set_receipt_source([&receipts] {
            const ReceiptCounts counts = receipts.counts();
            ReceiptFigures figures;
            figures.ids_offered = counts.ids_offered;
            figures.ids_sent = counts.ids_sent;
            return figures;
        });

        // The status reporter: reads every figure while the sessions deliver.
        std::atomic<bool> delivering{true};
        std::thread status([&] {
            while (delivering.load()) {
                const BridgeFigures now = stats.figures();
                if (now.receipts) offered_seen_by_status = now.receipts->ids_offered;
                std::this_thread::yield();
            }
        });
        // Each session forwards its own alarms, then receives another
        // session's alarms again (a redelivery): duplicates, at once.
        deliver_concurrently(
            delivery, [&](int s) -> const std::vector<Incoming>& { return alarms[s]; }, &first);
        deliver_concurrently(
            delivery,
            [&](int s) -> const std::vector<Incoming>& { return alarms[(s + 1) % kSessions]; },
            &again);
        delivering = false;
        status.join();
        after = stats.figures();  // while the receipt source (the batcher) lives
        REQUIRE(after.receipts);
        CHECK(after.receipts->ids_offered == 2 * kSessions * kAlarmsPerSession);
    }  // the batcher sends what is queued and stops

    const int total = kSessions * kAlarmsPerSession;
    CHECK(first[Verdict::kForwarded] == total);
    CHECK(again[Verdict::kDuplicate] == total);
    CHECK(after.duplicates == static_cast<std::uint64_t>(total));
    CHECK(offered_seen_by_status <= 2 * total);
    const auto sends = sink.sends();
    const auto receipts = sender.receipts();
    std::size_t receipt_ids = 0;
    for (const auto& session : alarms) {
        for (const Incoming& alarm : session) {
            INFO(alarm.event_id << " on " << alarm.message.topic);
            const auto sent = sends.find(alarm.event_id);
            REQUIRE(sent != sends.end());
            CHECK(sent->second == 1);  // the redelivery was not sent again
            const auto found = receipts.find({alarm.receipt_topic, alarm.event_id});
            REQUIRE(found != receipts.end());
            CHECK(found->second == 2);  // once forwarded, once as a duplicate
            receipt_ids += static_cast<std::size_t>(found->second);
        }
    }
    // Nothing else: no receipt on another gateway's topic, none invented.
    std::size_t all_ids = 0;
    for (const auto& [key, times] : receipts) all_ids += static_cast<std::size_t>(times);
    CHECK(all_ids == receipt_ids);
}
