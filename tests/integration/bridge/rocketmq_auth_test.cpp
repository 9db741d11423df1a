// Against a RocketMQ that authenticates every request (scripts/rocketmq.sh
// with ROCKETMQ_AUTH=1: ACL 2.0, the client user made with mqadmin
// createUser): signed requests forward; a wrong secret is refused once,
// holds every alarm unacknowledged, and a restart with the right secret
// forwards them all. Checked from outside with mqadmin (as the super user).
#include <sys/stat.h>

#include "secure_rocketmq.h"

using namespace outpost::testing;

TEST_CASE("with the right access key and secret, alarms reach an authenticating RocketMQ") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_auth_ok_" + run_id();
    create_rocketmq_topic(alarms, 4);
    BridgeProcess bridge(
        dir, "bridge",
        with_env_security(bridge_config(broker.uri(), "bridge-auth-ok-" + run_id(), alarms,
                                        "it_auth_ok_q_" + run_id(), dir.file("status.json"))));
    bridge.start();
    const std::vector<GatewayEvent> events = make_events(2, 3, 4);  // 24 events
    forward_and_wait(broker, bridge, events, events.size());
    const std::set<std::string> ids = ids_of(events);
    CHECK(missing_keys(messages_with_keys(alarms, ids), ids).empty());
    CHECK(bridge.status()["rocketmq_errors"]["total"] == 0);
}

TEST_CASE("a wrong secret holds every alarm unacknowledged; the right one forwards them all") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_auth_bad_" + run_id();
    const std::string quarantine = "it_auth_bad_q_" + run_id();
    const std::string client_id = "bridge-auth-bad-" + run_id();
    create_rocketmq_topic(alarms, 4);
    nlohmann::json config = with_env_security(
        bridge_config(broker.uri(), client_id, alarms, quarantine, dir.file("status.json")));
    const std::string secret_file = dir.file("bridge.secret");
    std::ofstream(secret_file) << "not-the-secret\n";
    REQUIRE(::chmod(secret_file.c_str(), 0600) == 0);
    config["rocketmq"]["secret_file"] = secret_file;

    const std::vector<GatewayEvent> events = make_events(1, 2, 5);  // 10 events
    {
        BridgeProcess bridge(dir, "bridge", config);
        bridge.start();
        {
            GatewayPublisher gateway(broker.uri(), "gw-auth-bad-" + run_id());
            REQUIRE_NOTHROW(gateway.publish_all(outgoing(events)));
        }
        const std::string refused = wait_for_refusal(bridge);
        INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
        CHECK(refused.find("NO_PERMISSION") != std::string::npos);
        CHECK(refused.find("check signature failed") != std::string::npos);
        CHECK(bridge.log().find("restart the bridge") != std::string::npos);
        // Not retried: the one refused send stays the only error.
        std::this_thread::sleep_for(std::chrono::seconds(2));
        const nlohmann::json held = bridge.status();
        CHECK(held["rocketmq_errors"]["total"] == 1);
        CHECK(held["rocketmq_errors"]["permission_denied"] == 1);
        CHECK(held["forwarded"] == 0);
        CHECK(held["quarantined"]["total"] == 0);
        CHECK(held["holding"] == true);
        CHECK(pubacks_from(broker, client_id) == 0);  // nothing acknowledged
        bridge.terminate();
    }
    CHECK(pubacks_from(broker, client_id) == 0);

    // The operator fixes the secret file and restarts the bridge.
    std::ofstream(secret_file, std::ios::trunc)
        << read_file(rocketmq_env()["ROCKETMQ_SECRET_FILE"]);
    BridgeProcess fixed(dir, "fixed", config);
    fixed.start();
    const bool forwarded = wait_until([&] { return fixed.counter("forwarded") >= events.size(); },
                                      std::chrono::seconds(90));
    INFO("status: " << fixed.status().dump() << " | bridge log: " << fixed.log());
    REQUIRE(forwarded);
    const std::set<std::string> ids = ids_of(events);
    CHECK(missing_keys(messages_with_keys(alarms, ids), ids).empty());
    CHECK(fixed.status()["quarantined"]["total"] == 0);
    CHECK(pubacks_from(broker, client_id) >= events.size());
}
