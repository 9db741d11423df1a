// Against a RocketMQ whose name server and broker accept TLS only
// (scripts/rocketmq.sh with ROCKETMQ_TLS=1, tls.server.mode=enforcing):
// forwarding works with the instance's CA, also with a dead name server
// listed first; a certificate from a CA the bridge does not trust is
// refused with a clear error and nothing is acknowledged.
#include "secure_rocketmq.h"
#include "test_pki.h"

using namespace outpost::testing;

TEST_CASE("alarms reach a TLS-only RocketMQ, with a dead name server listed first") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_tls_ok_" + run_id();
    create_rocketmq_topic(alarms, 4);
    nlohmann::json config =
        with_env_security(bridge_config(broker.uri(), "bridge-tls-ok-" + run_id(), alarms,
                                        "it_tls_ok_q_" + run_id(), dir.file("status.json")));
    const std::string dead = dead_loopback_address();
    config["rocketmq"]["name_servers"] = nlohmann::json::array({dead, rocketmq_env()["NAMESRV_ADDR"]});
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();
    const std::vector<GatewayEvent> events = make_events(2, 3, 4);  // 24 events
    forward_all_and_check(broker, bridge, alarms, events);
    // It was asked first, failed, and the other one answered.
    CHECK(bridge.logged("RocketMQ name server " + dead + " failed a route lookup"));
}

TEST_CASE("a RocketMQ certificate from an untrusted CA is refused and nothing is acknowledged") {
    TempDir dir;
    Mosquitto broker;
    TestPki pki;
    const std::string alarms = "it_tls_bad_" + run_id();
    const std::string client_id = "bridge-tls-bad-" + run_id();
    create_rocketmq_topic(alarms, 4);
    nlohmann::json config = with_env_security(bridge_config(
        broker.uri(), client_id, alarms, "it_tls_bad_q_" + run_id(), dir.file("status.json")));
    config["rocketmq"]["tls"]["ca_file"] = pki.make_ca("stranger-ca").cert;
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();
    const std::vector<GatewayEvent> events = make_events(1, 1, 3);
    {
        GatewayPublisher gateway(broker.uri(), "gw-tls-bad-" + run_id());
        REQUIRE_NOTHROW(gateway.publish_all(outgoing(events)));
    }
    const std::string refused = wait_for_refusal(bridge);
    INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
    CHECK(refused.find("refused the server certificate") != std::string::npos);
    CHECK(refused.find("unable to get local issuer certificate") != std::string::npos);
    CHECK(bridge.counter("forwarded") == 0);
    CHECK(bridge.status()["quarantined"]["total"] == 0);
    CHECK(pubacks_from(broker, client_id) == 0);
}
