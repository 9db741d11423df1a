// Against a RocketMQ that authenticates and authorizes every request
// (scripts/rocketmq.sh with ROCKETMQ_AUTH=1: ACL 2.0, the bridge's account
// made by deploy/rocketmq/outpost-accounts.sh as shipped, Pub on the alarm
// and quarantine topics only): signed requests forward and quarantine; a
// wrong secret, an access key the broker does not know, and a user denied
// Pub on the topic are each refused once, hold every alarm unacknowledged,
// are counted under RocketMQ's response code, and a restart with the right
// credentials forwards them all. Checked from outside with mqadmin (as the
// super user). The consumer's account and the bridge's refusal to consume
// are tested by the consumer (RocketMqAccessTest).
#include <sys/stat.h>

#include "bridge/rocketmq/quarantine_message.h"
#include "secure_rocketmq.h"
#include "service_probes.h"

using namespace outpost::testing;

namespace {

// Writes `secret` to a file of its own in `dir` (mode 600, as the bridge
// requires) and returns its path.
std::string secret_file_with(const TempDir& dir, const std::string& name,
                             const std::string& secret) {
    const std::string path = dir.file(name);
    std::ofstream(path, std::ios::trunc) << secret;
    REQUIRE(::chmod(path.c_str(), 0600) == 0);
    return path;
}

// The bridge with `refused` credentials (rocketmq.access_key and
// secret_file) gets refused: the status names the refusal (each of
// `reasons` appears in it), the log says what to do, the one refused send
// stays the only error and is counted under NO_PERMISSION, also on the
// metrics endpoint; nothing is forwarded, quarantined or acknowledged.
// Restarted with the instance's client user, it forwards every alarm.
void check_refused_then_fixed(const std::string& name, const std::string& access_key,
                              const std::string& secret, const std::vector<std::string>& reasons) {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = rocketmq_env()["ROCKETMQ_ALARM_TOPIC"];
    const std::string client_id = "bridge-auth-" + name + "-" + run_id();
    nlohmann::json config = with_env_security(
        bridge_config(broker.uri(), client_id, alarms, rocketmq_env()["ROCKETMQ_QUARANTINE_TOPIC"],
                      dir.file("status.json")));
    config["rocketmq"]["access_key"] = access_key;
    config["rocketmq"]["secret_file"] = secret_file_with(dir, "refused.secret", secret);
    const int port = free_loopback_port();
    config["metrics"] = {{"listen", "127.0.0.1:" + std::to_string(port)}};

    const std::vector<GatewayEvent> events = make_events(1, 2, 5);  // 10 events
    {
        BridgeProcess bridge(dir, "bridge", config);
        bridge.start();
        {
            GatewayPublisher gateway(broker.uri(), "gw-auth-" + name + "-" + run_id());
            REQUIRE_NOTHROW(gateway.publish_all(outgoing(events)));
        }
        const std::string refused = wait_for_refusal(bridge);
        INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
        CHECK(refused.find("NO_PERMISSION") != std::string::npos);
        for (const std::string& reason : reasons) CHECK(refused.find(reason) != std::string::npos);
        CHECK(bridge.log().find("restart the bridge") != std::string::npos);
        // Not retried: the one refused send stays the only error, in a report
        // written after the refusal's. (That no resend ever follows is proved
        // on a fake clock: tests/unit/bridge/delivery_test.cpp, and the
        // producer's one attempt in rocketmq_producer_retry_test.cpp.)
        const std::int64_t refusal_report = bridge.status().value("ts_ms", std::int64_t{0});
        REQUIRE(wait_until(
            [&] { return bridge.status().value("ts_ms", std::int64_t{0}) > refusal_report; },
            std::chrono::seconds(30)));
        const nlohmann::json held = bridge.status();
        CHECK(held["rocketmq_errors"]["total"] == 1);
        CHECK(held["rocketmq_errors"]["16:NO_PERMISSION"] == 1);
        CHECK(
            metric_value(http_get(port, "/metrics").body,
                         "outpost_bridge_rocketmq_errors_total{code=\"16\",name=\"NO_PERMISSION\"}")
                .value_or(-1) == 1);
        CHECK(held["forwarded"] == 0);
        CHECK(held["quarantined"]["total"] == 0);
        CHECK(held["holding"] == true);
        CHECK(pubacks_from(broker, client_id) == 0);  // nothing acknowledged
        bridge.terminate();
    }
    CHECK(pubacks_from(broker, client_id) == 0);

    // The operator fixes the credentials and restarts the bridge.
    BridgeProcess fixed(dir, "fixed", with_env_security(config));
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

}  // namespace

TEST_CASE("the shipped bridge account forwards alarms to its topic and quarantines to its own") {
    TempDir dir;
    Mosquitto broker;
    std::map<std::string, std::string>& env = rocketmq_env();
    const std::string alarms = env["ROCKETMQ_ALARM_TOPIC"];
    const std::string quarantine = env["ROCKETMQ_QUARANTINE_TOPIC"];
    BridgeProcess bridge(dir, "bridge",
                         with_env_security(bridge_config(broker.uri(), "bridge-auth-ok-" + run_id(),
                                                         alarms, quarantine,
                                                         dir.file("status.json"))));
    bridge.start();
    const std::string torn_topic = alarm_topic("gw-torn-" + run_id(), "dev-1");
    const std::string torn = "{\"eventId\":\"" + new_event_id() + "\",";
    {
        GatewayPublisher gateway(broker.uri(), "gw-torn-" + run_id());
        REQUIRE_NOTHROW(gateway.publish(torn_topic, torn));
    }
    const std::vector<GatewayEvent> events = make_events(2, 3, 4);  // 24 events
    forward_and_wait(broker, bridge, events, events.size());
    const std::set<std::string> ids = ids_of(events);
    CHECK(missing_keys(messages_with_keys(alarms, ids), ids).empty());
    const bool quarantined = wait_until(
        [&] { return bridge.status()["quarantined"].value("total", 0u) == 1; },
        std::chrono::seconds(30));
    INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
    REQUIRE(quarantined);
    const std::string key = outpost::bridge::quarantine_key(torn_topic, torn);
    CHECK(missing_keys(messages_with_keys(quarantine, {key}), {key}).empty());
    CHECK(bridge.status()["rocketmq_errors"]["total"] == 0);
}

TEST_CASE("a wrong secret holds every alarm unacknowledged; the right one forwards them all") {
    check_refused_then_fixed("bad", rocketmq_env()["ROCKETMQ_ACCESS_KEY"], "not-the-secret\n",
                             {"check signature failed"});
}

TEST_CASE("an access key RocketMQ does not know holds every alarm; the right one forwards them") {
    check_refused_then_fixed("nokey", "outpost_nobody_" + run_id(),
                             read_file(rocketmq_env()["ROCKETMQ_SECRET_FILE"]),
                             {"outpost_nobody_" + run_id()});
}

TEST_CASE("a user denied Pub on the topic holds every alarm; an allowed one forwards them") {
    std::map<std::string, std::string>& env = rocketmq_env();
    check_refused_then_fixed("nopub", env["ROCKETMQ_NOPUB_ACCESS_KEY"],
                             read_file(env["ROCKETMQ_NOPUB_SECRET_FILE"]),
                             {"User:" + env["ROCKETMQ_NOPUB_ACCESS_KEY"] + " has no permission",
                              "the decision is deny"});
}
