// Alarms published over MQTT by gateways reach RocketMQ under their eventIds,
// with the tag from the mapping rule and one device's events on one queue in
// sequence order. Checked from outside: mqadmin printMsg and queryMsgByKey.
#include "bridge_harness.h"
#include "eventually.h"

using namespace outpost::testing;

TEST_CASE("alarms published over MQTT arrive in RocketMQ by eventId, in order per device") {
    with_test_broker([&](auto& broker) {
        TempDir dir;
        const std::string alarms = "it_bridge_e2e_" + run_id();
        const std::string quarantine = "it_bridge_e2e_q_" + run_id();
        create_rocketmq_topic(alarms, 8);
        BridgeProcess bridge(dir, "bridge",
                             bridge_config(broker.uri(), "bridge-e2e-" + run_id(), alarms,
                                           quarantine, dir.file("status.json")));
        bridge.start();

        const std::vector<GatewayEvent> events = make_events(3, 4, 10);  // 120 events
        {
            GatewayPublisher gateway(broker.uri(), "gw-e2e-" + run_id());
            REQUIRE_NOTHROW(gateway.publish_all(outgoing(events)));
        }
        {
            const bool forwarded =
                wait_until([&] { return bridge.counter("forwarded") >= events.size(); },
                           std::chrono::seconds(90));
            INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
            REQUIRE(forwarded);
        }
        CHECK(bridge.status()["quarantined"]["total"] == 0);
        CHECK(bridge.counter("duplicates_suppressed") == 0);

        const std::set<std::string> ids = ids_of(events);
        const std::vector<StoredMessage> stored = messages_with_keys(alarms, ids);
        CHECK(missing_keys(stored, ids).empty());
        CHECK(stored.size() == events.size());  // no duplicates on this happy path

        std::map<std::string, const GatewayEvent*> by_id;
        for (const GatewayEvent& event : events) by_id[event.event_id] = &event;
        std::map<std::string, std::vector<const StoredMessage*>> by_device;
        for (const StoredMessage& message : stored) {
            auto event = by_id.find(message.keys);
            REQUIRE(event != by_id.end());
            CHECK(message.tags == (event->second->seq % 2 ? "major" : "critical"));
            CHECK(message.body == event->second->outgoing().payload);  // verbatim
            by_device[event->second->gateway + "/" + event->second->device].push_back(&message);
        }
        CHECK(by_device.size() == 12);
        std::set<int> queues_used;
        for (auto& [device, messages] : by_device) {
            INFO("device " << device);
            std::sort(messages.begin(), messages.end(),
                      [](auto* a, auto* b) { return a->queue_offset < b->queue_offset; });
            for (std::size_t i = 0; i < messages.size(); ++i) {
                CHECK(messages[i]->queue_id == messages[0]->queue_id);
                CHECK(by_id[messages[i]->keys]->seq == static_cast<std::int64_t>(i + 1));
            }
            queues_used.insert(messages[0]->queue_id);
        }
        CHECK(queues_used.size() > 1);  // devices spread over the queues

        // And the way an operator looks one event up. The broker builds its
        // key index after storing, and mqadmin (a JVM) can fail on a loaded
        // machine, so an empty answer is asked again.
        const StoredMessage& sample = stored.front();
        std::string found;
        eventually(
            [&] {
                found = mqadmin("queryMsgByKey -t " + alarms + " -k " + sample.keys);
                return found.find(sample.message_id) != std::string::npos;
            },
            std::chrono::seconds(60));
        INFO("queryMsgByKey: " << one_line(found));
        CHECK(found.find(sample.message_id) != std::string::npos);
    });
}
