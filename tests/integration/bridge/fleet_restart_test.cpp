// A fleet through broker restarts (tests/support/fleet/fleet_run.h, the
// fleet bench's own code at short counts): 200 gateways, 20 of them real
// Outpost publishers with receipts, each its own MQTT v5 session, raising
// alarms through a persistent mosquitto, outpost-bridge and the runner's
// RocketMQ while the broker is stopped with SIGTERM and later SIGKILLed,
// down for two seconds each time. Every alarm must end receipted (for the
// Outpost gateways: confirmed in their stores), and any the broker
// acknowledged without a receipt must be in RocketMQ.
#include "bridge_harness.h"
#include "fleet_run.h"

using namespace outpost;
using namespace outpost::testing;

TEST_CASE(
    "a fleet of 200 gateways through a graceful and a SIGKILL broker restart loses no alarm and "
    "gets every receipt") {
    fleet::FleetOptions options;
    options.gateways = 200;
    options.outpost_gateways = 20;
    options.interval_s = 2;
    options.burst_fraction = 0.05;
    options.burst_size = 5;
    options.warmup_s = 1;
    options.steady_s = 3;
    options.down_s = 2;
    options.settle_s = 2;
    // Short, so that alarms whose receipt went to a gateway while it was
    // away (clean sessions) are published again within the test's time.
    options.receipt_timeout_ms = 3000;
    options.drain_limit_s = 60;
    options.restarts = {fleet::Restart::kGraceful, fleet::Restart::kKill};
    options.bridge_binary = OUTPOST_BRIDGE_BINARY;
    options.source_root = OUTPOST_SOURCE_ROOT;
    options.rocketmq_dir = rocketmq_env()["ROCKETMQ_DIR"];
    options.name_servers = rocketmq_env()["NAMESRV_ADDR"];
    options.rocketmq_broker = rocketmq_env()["BROKER_ADDR"];
    options.topic = "it_fleet_" + run_id();

    const fleet::FleetReport report = fleet::run_fleet(options);
    INFO(report.to_json().dump());
    CHECK(report.outpost_gateways == 20);
    REQUIRE(report.alarms_raised > 0);
    REQUIRE(report.restarts.size() == 2);
    for (const fleet::RestartFigures& restart : report.restarts) {
        INFO(fleet::restart_name(restart.kind));
        CHECK(restart.backlog > 0);           // the fleet kept raising alarms while it was down
        CHECK(restart.reconnected_s >= 0);    // every gateway came back
        CHECK(restart.drained_s >= 0);        // and every alarm raised before is receipted
    }
    CHECK(report.alarms_lost == 0);
    CHECK(report.alarms_unsent == 0);
    CHECK(report.receipts_delivered == report.receipts_expected);
    CHECK(report.final_drain_s >= 0);
}
