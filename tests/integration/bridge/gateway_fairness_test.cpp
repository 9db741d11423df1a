// Fairness between gateways, end to end: real mosquitto, RocketMQ,
// outpost-bridge with limits.max_messages_per_s_per_gateway, and five
// gateways (Store and Publisher, receipts on). Four record alarms at a modest
// rate; the fifth records ten times as many as the four together, all
// through one bridge. The four are never paced and never wait behind the
// flood: each alarm is confirmed by its first receipt (none republished) and
// is in RocketMQ, and when the last of them is confirmed the flooder has
// fewer than half of its own confirmed (without the budget the broker hands
// the bridge everything in publish order, and the four's last alarms come
// after nearly all of the flood). The flooder's excess is paced (counted in
// the status as "paced"), and none of its alarms is lost: each is confirmed
// and in RocketMQ, or still waiting at the gateway (PENDING or SENT), never
// DEAD.
#include <thread>

#include "receipts_harness.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

constexpr int kWellBehaved = 4;
constexpr int kTicks = 30;                                   // 100 ms each: 3 s of traffic
constexpr int kPerTick = 1;                                  // each well-behaved gateway: 10/s
constexpr int kFloodPerTick = 10 * kWellBehaved * kPerTick;  // ten times the four together
constexpr double kBudgetPerGateway = 20;                     // twice what a well-behaved one needs

std::vector<EventRecord> rows_in(Store& store, EventState state) {
    StoreAdmin admin(store);
    std::vector<EventRecord> all;
    for (int64_t after = 0;;) {
        auto rows = admin.list_events(state, after, 1000);
        REQUIRE(rows.is_ok());
        if (rows->empty()) return all;
        after = rows->back().id;
        all.insert(all.end(), rows->begin(), rows->end());
    }
}

}  // namespace

TEST_CASE("a gateway flooding ten times the others is paced alone; nobody loses an alarm") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_fairness_" + run_id();
    create_rocketmq_topic(alarms, 4);
    nlohmann::json config =
        receipts_bridge_config(broker, "bridge-fair-" + run_id(), alarms,
                               "it_fairness_q_" + run_id(), dir.file("status.json"), true);
    config["limits"] = {{"max_messages_per_s_per_gateway", kBudgetPerGateway}};
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();

    // The four wait long for a receipt: one republish would mean one of
    // their alarms was not answered at once. The flooder republishes its
    // paced alarms after 1 s.
    std::vector<std::unique_ptr<ReceiptGateway>> good;
    for (int g = 0; g < kWellBehaved; ++g) {
        good.push_back(
            std::make_unique<ReceiptGateway>(dir, broker, "gw-fair-" + std::to_string(g), 60000));
    }
    ReceiptGateway flooder(dir, broker, "gw-flood", 1000);

    std::vector<std::set<std::string>> good_ids(kWellBehaved);
    std::set<std::string> flood_ids;
    for (int tick = 0; tick < kTicks; ++tick) {
        for (int g = 0; g < kWellBehaved; ++g) {
            const std::set<std::string> ids = good[g]->record(kPerTick);
            good_ids[g].insert(ids.begin(), ids.end());
        }
        const std::set<std::string> ids = flooder.record(kFloodPerTick);
        flood_ids.insert(ids.begin(), ids.end());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the recording pace
    }

    const bool confirmed = wait_until(
        [&] {
            for (int g = 0; g < kWellBehaved; ++g) {
                if (!good[g]->all_confirmed(good_ids[g].size())) return false;
            }
            return true;
        },
        std::chrono::seconds(30));
    const std::uint64_t paced = bridge.counter("paced");
    const int64_t flood_confirmed_then = flooder.stats().confirmed;
    INFO("flooder confirmed when the others were: " << flood_confirmed_then << " of "
                                                    << flood_ids.size());
    INFO("good[0]: " << good[0]->describe() << " | flooder: " << flooder.describe()
                     << " | bridge: " << bridge.status().dump() << " | log: " << bridge.log());
    REQUIRE(confirmed);
    for (int g = 0; g < kWellBehaved; ++g) {
        INFO("gateway " << g << ": " << good[g]->describe());
        CHECK(good[g]->status().republished == 0);  // never paced, never waited on the flooder
        CHECK(good[g]->stats().dead == 0);
    }
    // The flooder's excess was paced and counted, and the log names it.
    CHECK(paced > 0);
    CHECK(flood_confirmed_then < static_cast<int64_t>(flood_ids.size()) / 2);
    CHECK(bridge.logged(
        "gateway \"gw-flood\" publishes above limits.max_messages_per_s_per_gateway"));

    // Nothing of the flooder's is lost: every alarm is a row still waiting
    // (PENDING, or SENT and not confirmed) or confirmed, none DEAD.
    const std::vector<EventRecord> flood_sent = rows_in(flooder.store(), EventState::kSent);
    const std::vector<EventRecord> flood_pending = rows_in(flooder.store(), EventState::kPending);
    std::set<std::string> flood_rows;
    std::set<std::string> flood_confirmed;
    for (const EventRecord& row : flood_sent) {
        flood_rows.insert(row.event_id);
        if (row.confirmed) flood_confirmed.insert(row.event_id);
    }
    for (const EventRecord& row : flood_pending) flood_rows.insert(row.event_id);
    CHECK(flood_rows == flood_ids);
    CHECK(flooder.stats().dead == 0);

    // What the receipts claim holds from outside: RocketMQ has every alarm
    // of the four and every confirmed alarm of the flooder.
    std::set<std::string> confirmed_ids = flood_confirmed;
    for (const auto& ids : good_ids) confirmed_ids.insert(ids.begin(), ids.end());
    CHECK(missing_keys(messages_with_keys(alarms, confirmed_ids), confirmed_ids).empty());
}
