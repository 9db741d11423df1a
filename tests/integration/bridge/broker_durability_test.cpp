// What the bridge tells an operator about the RocketMQ broker behind its
// topics: whether SEND_OK (on which it acknowledges MQTT and confirms to the
// gateway) is durable. Run against the suite's ASYNC_FLUSH broker (not
// durable), and, registered again with the TLS instance's env
// (OUTPOST_ROCKETMQ_TLS_ENV, SYNC_FLUSH in the suite), a durable one: the
// expected verdict is the env file's ROCKETMQ_FLUSH_DISK_TYPE. Each case
// runs with one session and with two (the supervising process surveys for
// both and says it once).
#include <string>

#include "bridge_harness.h"
#include "secure_rocketmq.h"
#include "service_probes.h"

using namespace outpost::testing;

namespace {

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
        ++count;
    }
    return count;
}

}  // namespace

TEST_CASE("the bridge says once in its log, and in status and metrics, whether each broker's "
          "SEND_OK is durable",
          "[bridge]") {
    const int sessions = GENERATE(1, 2);
    INFO("sessions: " << sessions);
    const std::string flush = rocketmq_env()["ROCKETMQ_FLUSH_DISK_TYPE"];
    if (flush != "ASYNC_FLUSH" && flush != "SYNC_FLUSH") {
        SUCCEED("the env file does not say how its broker flushes (scripts/rocketmq.sh start)");
        return;
    }
    const bool durable = flush == "SYNC_FLUSH";
    TempDir dir;
    Mosquitto broker;
    const int port = free_loopback_port();
    nlohmann::json config = with_env_security(
        bridge_config(broker.uri(), "bridge-durable-" + run_id(), "it_bridge_durable_" + run_id(),
                      "it_bridge_durable_q_" + run_id(), dir.file("status.json")));
    config["metrics"] = {{"listen", "127.0.0.1:" + std::to_string(port)}};
    config["mqtt"]["sessions"] = sessions;
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();

    nlohmann::json brokers;
    const bool surveyed = wait_until(
        [&] {
            brokers = bridge.status().value("rocketmq_brokers", nlohmann::json::object());
            return !brokers.empty();
        },
        std::chrono::seconds(30));
    INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
    REQUIRE(surveyed);
    REQUIRE(brokers.size() == 1);
    const nlohmann::json& only = brokers.begin().value();
    const std::string name = brokers.begin().key();
    CHECK(only.value("address", "") == rocketmq_env()["BROKER_ADDR"]);
    CHECK(only.value("flushDiskType", "") == flush);
    CHECK(only.value("brokerRole", "") == "ASYNC_MASTER");
    CHECK(only.value("durable", "") == (durable ? "durable" : "not_durable"));

    const std::string scrape = http_get(port, "/metrics").body;
    CHECK(metric_value(scrape, "outpost_bridge_rocketmq_broker_durable{broker=\"" + name + "\"}") ==
          (durable ? 1 : 0));

    // Said once, by the process that answers for the bridge, and as a
    // warning when it is not durable.
    const std::string log = read_file(dir.file("bridge.log"));
    CHECK(occurrences(log, "RocketMQ broker " + name + " (") == 1);
    CHECK(occurrences(log, durable ? ": durable: " : ": not durable: ") == 1);
    if (!durable) CHECK(occurrences(log, "warn: RocketMQ broker " + name) == 1);
}
