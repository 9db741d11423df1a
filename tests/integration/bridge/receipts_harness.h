// What the receipt tests share: a gateway made of the real Store
// and Publisher with receipts on, beside the bridge harness's real
// mosquitto, RocketMQ and outpost-bridge.
//
// Test scaffolding: failures throw or fail a REQUIRE.
#ifndef OUTPOST_TESTS_BRIDGE_RECEIPTS_HARNESS_H
#define OUTPOST_TESTS_BRIDGE_RECEIPTS_HARNESS_H

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bridge_harness.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "outpost/store_admin.h"
#include "store_fixture.h"

namespace outpost::testing {

// One gateway: its own store (gateway id `gateway_id`) and a publisher with
// receipts on, waiting `timeout_ms` (then up to twice that) for a receipt.
// `adjust` may change the publisher's options before it starts.
class ReceiptGateway final {
  public:
    ReceiptGateway(const TempDir& dir, const Mosquitto& broker, const std::string& gateway_id,
                   int64_t timeout_ms, const std::string& password = "",
                   const std::function<void(PublisherOptions&)>& adjust = {}) {
        StoreOptions options;
        options.gateway_id = gateway_id;
        store_ = open_store(dir.file(gateway_id + ".db"), options);
        PublisherOptions publisher;
        publisher.endpoint.uri = broker.uri();
        publisher.endpoint.client_id = gateway_id + "-" + run_id();
        if (!password.empty()) {  // the broker knows the gateway by its id
            publisher.endpoint.username = gateway_id;
            publisher.endpoint.password = password;
        }
        publisher.endpoint.reconnect_initial = std::chrono::milliseconds(100);
        publisher.endpoint.reconnect_max = std::chrono::milliseconds(500);
        publisher.receipts = true;
        publisher.receipt_timeout = std::chrono::milliseconds(timeout_ms);
        publisher.receipt_timeout_max = std::chrono::milliseconds(2 * timeout_ms);
        if (adjust) adjust(publisher);
        auto started = Publisher::start(*store_, publisher);
        REQUIRE(started.is_ok());
        publisher_ = std::move(started).value();
        REQUIRE(
            wait_until([&] { return publisher_->status().connected; }, std::chrono::seconds(30)));
    }
    ~ReceiptGateway() {
        if (publisher_) publisher_->stop().ignore_error("test teardown");
    }

    // Records `count` alarms over 4 devices; returns their eventIds.
    std::set<std::string> record(int count) {
        std::set<std::string> ids;
        for (int i = 0; i < count; ++i) {
            auto recorded = store_->record_alarm(sample_alarm("dev-" + std::to_string(i % 4)));
            REQUIRE(recorded.is_ok());
            ids.insert(recorded->event_id);
        }
        return ids;
    }

    Store& store() { return *store_; }
    StoreStats stats() {
        auto stats = store_->stats();
        REQUIRE(stats.is_ok());
        return *stats;
    }
    PublisherStatus status() const { return publisher_->status(); }
    std::string receipt_topic() const { return "outpost/" + store_->gateway_id() + "/receipt"; }
    // One line for INFO.
    std::string describe() {
        const StoreStats figures = stats();
        const PublisherStatus now = status();
        return "pending " + std::to_string(figures.pending) + " sent " +
               std::to_string(figures.sent) + " confirmed " + std::to_string(figures.confirmed) +
               " republished " + std::to_string(now.republished) + " ignored " +
               std::to_string(now.receipts_ignored) + " malformed " +
               std::to_string(now.receipts_malformed) + " last_error " + now.last_error;
    }
    // Every event of this store is SENT and confirmed (the store's own rows).
    bool all_confirmed(std::size_t count) {
        const StoreStats figures = stats();
        return figures.pending == 0 && figures.sent == static_cast<int64_t>(count) &&
               figures.confirmed == static_cast<int64_t>(count);
    }

  private:
    std::unique_ptr<Store> store_;
    std::unique_ptr<Publisher> publisher_;
};

// The bridge configuration with receipts on or off.
inline nlohmann::json receipts_bridge_config(const Mosquitto& broker, const std::string& client_id,
                                             const std::string& alarms,
                                             const std::string& quarantine,
                                             const std::string& status_file, bool receipts) {
    nlohmann::json config = bridge_config(broker.uri(), client_id, alarms, quarantine, status_file);
    config["receipts"] = {{"enabled", receipts}, {"max_ids", 50}, {"flush_ms", 100}};
    return config;
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_BRIDGE_RECEIPTS_HARNESS_H
