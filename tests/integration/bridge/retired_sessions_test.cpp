// mqtt.sessions lowered from 4 to 2 while sessions 2 and 3 hold queued
// messages at the broker (the bridge was stopped while gateways published,
// so the shared group rotated alarms into all four persistent sessions).
// The bridge restarted with 2 sessions also connects the client ids of the
// sessions it no longer runs (mqtt.retired_sessions), forwards what they
// hold, and ends them: every eventId reaches RocketMQ, the broker records
// exactly one PUBACK per message, the retired ids have no session left (and
// the status line says so), and alarms published afterwards go to the live
// sessions only.
#include "bridge_harness.h"

using namespace outpost::testing;

namespace {

// Whether the broker still keeps a session for `client_id`: a connect with
// clean_start=false says so in CONNACK. Expiry 0, so this probe leaves none.
bool broker_keeps_session(const std::string& uri, const std::string& client_id) {
    mqtt::async_client client(uri, client_id, mqtt::create_options(MQTTVERSION_5), nullptr);
    auto options = mqtt::connect_options_builder()
                       .mqtt_version(MQTTVERSION_5)
                       .clean_start(false)
                       .properties({mqtt::property(mqtt::property::SESSION_EXPIRY_INTERVAL, 0)})
                       .finalize();
    mqtt::token_ptr token = client.connect(options);
    if (!token->wait_for(std::chrono::seconds(10))) {
        throw std::runtime_error("probe connect as " + client_id + " timed out");
    }
    const bool present = token->get_connect_response().is_session_present();
    client.disconnect()->wait_for(std::chrono::seconds(5));
    return present;
}

}  // namespace

TEST_CASE("lowering mqtt.sessions forwards what the dropped sessions held and ends them") {
    with_test_broker([&](auto& broker) {
        TempDir dir;
        const std::string alarms = "it_bridge_retired_" + run_id();
        const std::string quarantine = "it_bridge_retired_q_" + run_id();
        const std::string base_id = "bridge-retired-" + run_id();
        create_rocketmq_topic(alarms, 4);
        nlohmann::json config =
            bridge_config(broker.uri(), base_id, alarms, quarantine, dir.file("status.json"));
        config["mqtt"]["sessions"] = 4;
        {
            BridgeProcess four(dir, "four", config);
            four.start();  // all four sessions connected: all four are in the group
        }
        // No bridge running: the broker queues each alarm in one of the four
        // persistent sessions.
        const std::vector<GatewayEvent> queued = make_events(2, 4, 10);  // 80 events
        {
            GatewayPublisher gateway(broker.uri(), "gw-retired-" + run_id());
            REQUIRE_NOTHROW(gateway.publish_all(outgoing(queued)));
        }

        config["mqtt"]["sessions"] = 2;
        BridgeProcess two(dir, "two", config);
        two.start();
        {
            const bool all_acked = wait_until(
                [&] { return pubacks_from_sessions(broker, base_id, 4) >= queued.size(); },
                std::chrono::seconds(30), std::chrono::milliseconds(250));
            INFO("PUBACKs per session "
                 << pubacks_from(broker, base_id) << "/" << pubacks_from(broker, base_id + "-1")
                 << "/" << pubacks_from(broker, base_id + "-2") << "/"
                 << pubacks_from(broker, base_id + "-3") << " | bridge log: " << two.log());
            REQUIRE(all_acked);
        }
        CHECK(pubacks_from(broker, base_id + "-2") + pubacks_from(broker, base_id + "-3") > 0);
        {
            const bool ended = wait_until(
                [&] {
                    return two.logged("retired session " + base_id + "-2 ended") &&
                           two.logged("retired session " + base_id + "-3 ended");
                },
                std::chrono::seconds(20), std::chrono::milliseconds(100));
            INFO("bridge log: " << two.log());
            REQUIRE(ended);
        }
        CHECK_FALSE(broker_keeps_session(broker.uri(), base_id + "-2"));
        CHECK_FALSE(broker_keeps_session(broker.uri(), base_id + "-3"));
        {
            // The status line names every retired id (the default 8 after
            // the live ones) and says each has ended: the two drained here,
            // and the six that never had a session.
            nlohmann::json expected = nlohmann::json::object();
            for (int index = 2; index < 2 + 8; ++index) {
                expected[base_id + "-" + std::to_string(index)] = "ended";
            }
            const auto retired = [&] {
                return two.status().value("retired_sessions", nlohmann::json());
            };
            const bool reported = wait_until([&] { return retired() == expected; },
                                             std::chrono::seconds(5),
                                             std::chrono::milliseconds(100));
            INFO("status: " << two.status().dump());
            CHECK(reported);
        }

        // The retired ids are out of the group: later alarms reach RocketMQ
        // through the two live sessions.
        const std::vector<GatewayEvent> later = make_events(1, 4, 5);  // 20 events
        {
            GatewayPublisher gateway(broker.uri(), "gw-retired-later-" + run_id());
            REQUIRE_NOTHROW(gateway.publish_all(outgoing(later)));
        }
        const std::size_t total = queued.size() + later.size();
        {
            const bool all_acked = wait_until(
                [&] {
                    return pubacks_from_sessions(broker, base_id, 2) +
                               pubacks_from(broker, base_id + "-2") +
                               pubacks_from(broker, base_id + "-3") >=
                           total;
                },
                std::chrono::seconds(30), std::chrono::milliseconds(250));
            INFO("bridge log: " << two.log());
            REQUIRE(all_acked);
        }
        CHECK(pubacks_from_sessions(broker, base_id, 4) == total);

        std::set<std::string> ids = ids_of(queued);
        for (const GatewayEvent& event : later) ids.insert(event.event_id);
        const std::vector<StoredMessage> stored = messages_with_keys(alarms, ids);
        const std::vector<std::string> missing = missing_keys(stored, ids);
        INFO("missing: " << missing.size() << " of " << ids.size() << ", stored " << stored.size());
        CHECK(missing.empty());
        std::printf(
            "# retired sessions: %zu queued + %zu later, %zu stored, PUBACKs %zu/%zu/%zu/%zu\n",
            queued.size(), later.size(), stored.size(), pubacks_from(broker, base_id),
            pubacks_from(broker, base_id + "-1"), pubacks_from(broker, base_id + "-2"),
            pubacks_from(broker, base_id + "-3"));
    });
}
