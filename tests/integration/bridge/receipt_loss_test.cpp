// Receipts, the loss path: receipts that never reach the gateway
// (here: the bridge sends none for a while) make it publish the SENT rows
// again with the same eventId; once receipts flow, every row is confirmed,
// RocketMQ holds every event, and each republish adds at most one copy.
#include "receipts_harness.h"

using namespace outpost;
using namespace outpost::testing;

TEST_CASE(
    "a receipt lost in transit leads to a republish and then a confirmation, losing nothing") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_receipts_lost_" + run_id();
    const std::string quarantine = "it_receipts_lost_q_" + run_id();
    const std::string client_id = "bridge-rl-" + run_id();
    create_rocketmq_topic(alarms, 4);
    std::set<std::string> recorded;
    {
        // Receipts lost: the bridge forwards but sends none back.
        BridgeProcess silent(dir, "silent",
                             receipts_bridge_config(broker, client_id, alarms, quarantine,
                                                    dir.file("silent-status.json"), false));
        silent.start();
        ReceiptGateway gateway(dir, broker, "gw-rl", 1000);
        recorded = gateway.record(30);
        const bool republished = wait_until(
            [&] { return gateway.stats().sent == 30 && gateway.status().republished >= 30; },
            std::chrono::seconds(60));
        INFO("gateway: " << gateway.describe() << " | bridge: " << silent.status().dump());
        REQUIRE(republished);
        CHECK(gateway.stats().confirmed == 0);
        silent.terminate();

        // Receipts flow again (the same bridge instance, restarted with them on).
        BridgeProcess talking(dir, "talking",
                              receipts_bridge_config(broker, client_id, alarms, quarantine,
                                                     dir.file("talking-status.json"), true));
        talking.start();
        const bool confirmed =
            wait_until([&] { return gateway.all_confirmed(30); }, std::chrono::seconds(60));
        INFO("gateway: " << gateway.describe() << " | bridge: " << talking.status().dump()
                         << " | log: " << talking.log());
        REQUIRE(confirmed);
        CHECK(gateway.status().confirmed == 30);

        const std::vector<StoredMessage> stored = messages_with_keys(alarms, recorded);
        CHECK(missing_keys(stored, recorded).empty());
        // Each event at least once, and at most once more per republish.
        CHECK(stored.size() >= recorded.size());
        CHECK(stored.size() <= recorded.size() + gateway.status().republished);
    }
}
