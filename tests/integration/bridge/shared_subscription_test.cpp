// Two bridge instances on one shared subscription: every event is forwarded,
// each copy a gateway resent is either forwarded or counted as a duplicate,
// and mosquitto records exactly one PUBACK per published message.
#include "bridge_harness.h"

using namespace outpost::testing;

TEST_CASE("two bridges on one shared subscription forward everything and count duplicates") {
    with_test_broker([&](auto& broker) {
        TempDir dir;
        const std::string alarms = "it_bridge_shared_" + run_id();
        const std::string quarantine = "it_bridge_shared_q_" + run_id();
        create_rocketmq_topic(alarms, 4);
        const std::string id_a = "bridge-shared-a-" + run_id();
        const std::string id_b = "bridge-shared-b-" + run_id();
        BridgeProcess a(
            dir, "a",
            bridge_config(broker.uri(), id_a, alarms, quarantine, dir.file("a.json.status")));
        BridgeProcess b(
            dir, "b",
            bridge_config(broker.uri(), id_b, alarms, quarantine, dir.file("b.json.status")));
        a.start();
        b.start();

        // Gateways resend after a lost PUBACK: here every event goes out twice,
        // the copy two messages after the original.
        const std::vector<GatewayEvent> events = make_events(2, 5, 10);  // 100 events
        std::vector<GatewayPublisher::Outgoing> messages;
        for (std::size_t i = 0; i < events.size(); i += 2) {
            for (int copy = 0; copy < 2; ++copy) {
                for (std::size_t j = i; j < std::min(i + 2, events.size()); ++j) {
                    messages.push_back(events[j].outgoing());
                }
            }
        }
        {
            GatewayPublisher gateway(broker.uri(), "gw-shared-" + run_id());
            REQUIRE_NOTHROW(gateway.publish_all(messages));
        }
        {
            const bool all_acked = wait_until(
                [&] {
                    return pubacks_from(broker, id_a) + pubacks_from(broker, id_b) >=
                           messages.size();
                },
                std::chrono::seconds(90), std::chrono::milliseconds(250));
            INFO("a: " << a.status().dump() << " | b: " << b.status().dump());
            REQUIRE(all_acked);
        }
        CHECK(pubacks_from(broker, id_a) + pubacks_from(broker, id_b) == messages.size());
        // Status files lag by one interval: wait for them to show every message
        // settled. Counting received ones is not enough: a snapshot written
        // while a batch was in flight already shows its messages received.
        const auto settled = [](const BridgeProcess& bridge) {
            return bridge.counter("forwarded") + bridge.counter("duplicates_suppressed");
        };
        wait_until([&] { return settled(a) + settled(b) >= messages.size(); },
                   std::chrono::seconds(10));
        const std::uint64_t forwarded = a.counter("forwarded") + b.counter("forwarded");
        const std::uint64_t duplicates =
            a.counter("duplicates_suppressed") + b.counter("duplicates_suppressed");
        INFO("a: " << a.status().dump() << " | b: " << b.status().dump());
        CHECK(a.counter("forwarded") > 0);
        CHECK(b.counter("forwarded") > 0);
        CHECK(forwarded + duplicates == messages.size());
        CHECK(forwarded >= events.size());
        CHECK(duplicates > 0);

        const std::set<std::string> ids = ids_of(events);
        const std::vector<StoredMessage> stored = messages_with_keys(alarms, ids);
        CHECK(missing_keys(stored, ids).empty());
        CHECK(stored.size() == forwarded);
        std::printf(
            "# shared: %zu published (%zu events), a forwarded %llu, b forwarded %llu, "
            "duplicates suppressed %llu\n",
            messages.size(), events.size(), static_cast<unsigned long long>(a.counter("forwarded")),
            static_cast<unsigned long long>(b.counter("forwarded")),
            static_cast<unsigned long long>(duplicates));
    });
}
