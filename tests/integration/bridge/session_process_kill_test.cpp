// A bridge with three sessions runs them in three session processes
// (src/bridge/processes/session_processes.h). One of them SIGKILLed in the middle of
// a stream is started again by the bridge process with the same client id,
// so its persistent session, and what it held unacknowledged, are still
// there: every event reaches RocketMQ, the broker records exactly one
// PUBACK per published message (none lost, none for a message the killed
// process had not stored), and the bridge process itself kept running.
#include <signal.h>

#include "bridge_harness.h"

using namespace outpost::testing;

TEST_CASE("a session process SIGKILLed mid-stream is started again and nothing is lost") {
    with_test_broker([&](auto& broker) {
        constexpr int kSessions = 3;
        TempDir dir;
        const std::string alarms = "it_bridge_child_kill_" + run_id();
        const std::string quarantine = "it_bridge_child_kill_q_" + run_id();
        const std::string base_id = "bridge-child-kill-" + run_id();
        create_rocketmq_topic(alarms, 4);
        nlohmann::json config =
            bridge_config(broker.uri(), base_id, alarms, quarantine, dir.file("status.json"));
        config["mqtt"]["sessions"] = kSessions;
        // Paced (the limit is shared by the processes), so that the kill
        // lands mid-stream on any broker.
        config["limits"] = {{"max_messages_per_s", 150}};
        BridgeProcess bridge(dir, "bridge", config);
        bridge.start();
        const nlohmann::json pids = bridge.status()["session_processes"]["pids"];
        REQUIRE(pids.size() == kSessions);
        const pid_t victim = pids[1].get<pid_t>();
        REQUIRE(victim > 0);

        const std::vector<GatewayEvent> events = make_events(2, 5, 30);  // 300 events
        BackgroundGateway gateway(broker.uri(), "gw-child-kill-" + run_id(), outgoing(events));
        const bool midway = wait_until([&] { return bridge.counter("forwarded") >= 60; },
                                       std::chrono::seconds(60), std::chrono::milliseconds(5));
        ::kill(victim, SIGKILL);
        const std::size_t acked_at_kill = pubacks_from_sessions(broker, base_id, kSessions);
        REQUIRE(gateway.join().empty());
        REQUIRE(midway);
        INFO("acknowledged when the session process was killed: " << acked_at_kill);
        CHECK(acked_at_kill < events.size());  // the kill really was mid-stream

        {
            const bool restarted = wait_until(
                [&] {
                    const nlohmann::json now = bridge.status();
                    if (!now.contains("session_processes")) return false;
                    const nlohmann::json& processes = now["session_processes"];
                    const pid_t pid = processes["pids"][1].get<pid_t>();
                    return processes["restarts"].get<int>() >= 1 && pid > 0 && pid != victim &&
                           now.value("mqtt_connected", false);
                },
                std::chrono::seconds(60), std::chrono::milliseconds(100));
            INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
            REQUIRE(restarted);
        }
        {
            const bool all_acked = wait_until(
                [&] { return pubacks_from_sessions(broker, base_id, kSessions) >= events.size(); },
                std::chrono::seconds(120), std::chrono::milliseconds(250));
            INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
            REQUIRE(all_acked);
        }
        CHECK(pubacks_from_sessions(broker, base_id, kSessions) == events.size());
        CHECK(bridge.running());
        CHECK(bridge.status()["quarantined"]["total"] == 0);

        const std::set<std::string> ids = ids_of(events);
        const std::vector<StoredMessage> stored = messages_with_keys(alarms, ids);
        const std::vector<std::string> missing = missing_keys(stored, ids);
        INFO("missing: " << missing.size() << " of " << ids.size() << ", stored " << stored.size());
        CHECK(missing.empty());
        // At least once: what the killed process had sent but not acknowledged
        // is sent again after the restart (its duplicate cache died with it).
        CHECK(stored.size() >= events.size());
        std::printf("# session process kill: %zu events, %zu stored (%zu duplicates), %s\n",
                    events.size(), stored.size(), stored.size() - events.size(),
                    bridge.status()["session_processes"].dump().c_str());
    });
}
