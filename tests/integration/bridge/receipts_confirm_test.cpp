// Receipts, the happy path and forgeries: the bridge tells each
// gateway which of its alarms RocketMQ stored, and the gateway confirms
// exactly those; receipts a gateway did not earn change nothing.
#include "receipts_harness.h"

using namespace outpost;
using namespace outpost::testing;

TEST_CASE("receipts from the bridge confirm every alarm, each gateway its own") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_receipts_ok_" + run_id();
    create_rocketmq_topic(alarms, 4);
    BridgeProcess bridge(
        dir, "bridge",
        receipts_bridge_config(broker, "bridge-rc-" + run_id(), alarms,
                               "it_receipts_ok_q_" + run_id(), dir.file("status.json"), true));
    bridge.start();
    // A long timeout: on this path nothing is published twice.
    ReceiptGateway a(dir, broker, "gw-ra", 60000);
    ReceiptGateway b(dir, broker, "gw-rb", 60000);
    const std::set<std::string> ids_a = a.record(60);
    const std::set<std::string> ids_b = b.record(40);

    const bool confirmed =
        wait_until([&] { return a.all_confirmed(ids_a.size()) && b.all_confirmed(ids_b.size()); },
                   std::chrono::seconds(60));
    INFO("a: " << a.describe() << " | b: " << b.describe()
               << " | bridge: " << bridge.status().dump() << " | log: " << bridge.log());
    REQUIRE(confirmed);
    CHECK(a.status().confirmed == ids_a.size());
    CHECK(b.status().confirmed == ids_b.size());
    CHECK(a.status().republished == 0);
    CHECK(a.status().receipts_malformed == 0);
    CHECK(a.status().receipts_ignored == 0);  // no gateway heard another's receipt
    CHECK(b.status().receipts_ignored == 0);
    REQUIRE(wait_until([&] { return a.status().awaiting_receipt == 0; }, std::chrono::seconds(5)));

    // What the receipts claim holds from outside: every event is in RocketMQ.
    std::set<std::string> all = ids_a;
    all.insert(ids_b.begin(), ids_b.end());
    CHECK(missing_keys(messages_with_keys(alarms, all), all).empty());
}

TEST_CASE("a forged receipt (another gateway's ids, an unknown id, malformed) changes nothing") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_receipts_forged_" + run_id();
    create_rocketmq_topic(alarms, 4);
    // Receipts off at the bridge: every row stays SENT and unconfirmed unless
    // something forged could confirm it.
    BridgeProcess bridge(
        dir, "bridge",
        receipts_bridge_config(broker, "bridge-rf-" + run_id(), alarms,
                               "it_receipts_forged_q_" + run_id(), dir.file("status.json"), false));
    bridge.start();
    ReceiptGateway a(dir, broker, "gw-fa", 600000);
    ReceiptGateway b(dir, broker, "gw-fb", 600000);
    const std::set<std::string> ids_a = a.record(20);
    b.record(20);
    REQUIRE(wait_until([&] { return a.stats().sent == 20 && b.stats().sent == 20; },
                       std::chrono::seconds(60)));

    GatewayPublisher forger(broker.uri(), "forger-" + run_id());
    const std::vector<std::string> a_ids(ids_a.begin(), ids_a.end());
    // A's real ids on B's receipt topic; an id no store holds on A's.
    forger.publish(b.receipt_topic(), nlohmann::json{{"v", 1}, {"eventIds", a_ids}}.dump());
    forger.publish(a.receipt_topic(),
                   nlohmann::json{{"v", 1}, {"eventIds", {new_event_id()}}}.dump());
    // Malformed receipts naming A's real ids, and one of a newer version
    // than the gateway reads: none of them may count.
    const std::string first = a_ids.front();
    std::string upper = first;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::vector<std::string> malformed = {
        "not json",
        nlohmann::json{{"v", 0}, {"eventIds", {first}}}.dump(),
        nlohmann::json{{"v", 1}, {"eventIds", {upper}}}.dump(),
        nlohmann::json{{"v", 1}, {"eventIds", {first, 7}}}.dump(),
        nlohmann::json{{"v", 1}, {"eventIds", nlohmann::json::array()}}.dump(),
        "{\"v\":1,\"eventIds\":[\"" + first + "\"],\"v\":1}",
    };
    for (const std::string& payload : malformed) forger.publish(a.receipt_topic(), payload);
    forger.publish(a.receipt_topic(), nlohmann::json{{"v", 3}, {"eventIds", {first}}}.dump());

    const bool counted = wait_until(
        [&] {
            return a.status().receipts_malformed == malformed.size() &&
                   a.status().receipts_newer == 1 && a.status().receipts_ignored == 1 &&
                   b.status().receipts_ignored == 20;
        },
        std::chrono::seconds(30));
    INFO("a: " << a.describe() << " | b: " << b.describe());
    REQUIRE(counted);
    CHECK(a.stats().confirmed == 0);
    CHECK(b.stats().confirmed == 0);
    CHECK(a.stats().sent == 20);
    CHECK(a.status().confirmed == 0);
    CHECK(b.status().confirmed == 0);
}
