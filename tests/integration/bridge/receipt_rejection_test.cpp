// Negative receipts end to end: real mosquitto, RocketMQ, outpost-bridge and
// a gateway (Store and Publisher, receipts on). Events the bridge
// quarantines (here: application events no mapping rule takes) end DEAD at
// the gateway with the bridge's reason, free their places under
// max_unconfirmed so new alarms keep flowing, and go through once an
// operator fixed the mapping and replayed them.
#include "receipts_harness.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

constexpr int kUnconfirmedPlaces = 10;

// `count` application events of device `device`, one transaction.
std::set<std::string> record_events(Store& store, const std::string& device, int count) {
    std::set<std::string> ids;
    auto recorded = store.transact([&](Transaction& tx) {
        for (int i = 0; i < count; ++i) {
            Event event;
            event.event_type = "VALVE_OPENED";
            event.device_id = device;
            event.aggregate_type = "valve";
            event.aggregate_id = "valve-" + std::to_string(i);
            event.payload_json = "{\"position\":" + std::to_string(i) + "}";
            auto queued = tx.enqueue(event);
            if (!queued) return queued.status();
        }
        return Status::ok();
    });
    REQUIRE(recorded.is_ok());
    for (const RecordedEvent& event : *recorded) ids.insert(event.event_id);
    return ids;
}

std::vector<EventRecord> dead_rows(Store& store) {
    StoreAdmin admin(store);
    auto rows = admin.list_events(EventState::kDead, 0, 1000);
    REQUIRE(rows.is_ok());
    return *rows;
}

}  // namespace

TEST_CASE("an event the bridge quarantines ends DEAD with its reason, frees its place, and replays") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_reject_a_" + run_id();
    const std::string events = "it_reject_e_" + run_id();
    const std::string quarantine = "it_reject_q_" + run_id();
    create_rocketmq_topic(alarms, 4);
    create_rocketmq_topic(events, 4);
    // The bridge's default filters take alarms and application events; its
    // mapping has a rule for alarms only.
    nlohmann::json config = receipts_bridge_config(broker, "bridge-rj-" + run_id(), alarms,
                                                   quarantine, dir.file("status.json"), true);
    auto bridge = std::make_unique<BridgeProcess>(dir, "bridge", config);
    bridge->start();
    // A long receipt timeout: nothing here may depend on a republish.
    ReceiptGateway gateway(dir, broker, "gw-rj", 600000, "", [](PublisherOptions& options) {
        options.max_in_flight = 5;
        options.max_unconfirmed = kUnconfirmedPlaces;
    });

    // As many quarantined events as the gateway has places for unconfirmed rows.
    const std::set<std::string> event_ids =
        record_events(gateway.store(), "valve-1", kUnconfirmedPlaces);
    const bool all_dead = wait_until(
        [&] { return gateway.stats().dead == kUnconfirmedPlaces; }, std::chrono::seconds(60));
    INFO("gateway: " << gateway.describe() << " | bridge: " << bridge->status().dump());
    REQUIRE(all_dead);
    for (const EventRecord& row : dead_rows(gateway.store())) {
        INFO(row.event_id << ": " << row.last_error);
        CHECK(event_ids.count(row.event_id) == 1);
        CHECK(row.last_error.rfind("rejected by the bridge: unmapped_topic: ", 0) == 0);
        CHECK(row.attempts == 1);
    }
    CHECK(gateway.status().rejected == kUnconfirmedPlaces);
    CHECK(gateway.status().dead == kUnconfirmedPlaces);
    CHECK(gateway.status().republished == 0);  // DEAD, not waiting for a receipt

    // Their places are free: new alarms go out and are confirmed.
    const std::set<std::string> alarm_ids = gateway.record(3 * kUnconfirmedPlaces);
    const bool flowing = wait_until(
        [&] { return gateway.stats().confirmed == 3 * kUnconfirmedPlaces; },
        std::chrono::seconds(60));
    INFO("gateway: " << gateway.describe());
    REQUIRE(flowing);
    CHECK(gateway.stats().pending == 0);
    CHECK(gateway.stats().dead == kUnconfirmedPlaces);

    // The operator maps application events and replays the DEAD rows.
    bridge.reset();
    config["mapping"].push_back({{"mqtt_filter", "outpost/+/event/+"}, {"rocketmq_topic", events}});
    BridgeProcess fixed(dir, "bridge-fixed", config);
    fixed.start();
    StoreAdmin admin(gateway.store());
    auto replayed = admin.replay_dead("events are mapped now", "receipt_rejection_test");
    REQUIRE(replayed.is_ok());
    CHECK(*replayed == kUnconfirmedPlaces);
    const bool delivered = wait_until(
        [&] {
            return gateway.stats().confirmed == 4 * kUnconfirmedPlaces && gateway.stats().dead == 0;
        },
        std::chrono::seconds(60));
    INFO("gateway: " << gateway.describe() << " | bridge: " << fixed.status().dump());
    REQUIRE(delivered);
    CHECK(missing_keys(messages_with_keys(events, event_ids), event_ids).empty());
    CHECK(missing_keys(messages_with_keys(alarms, alarm_ids), alarm_ids).empty());
}
