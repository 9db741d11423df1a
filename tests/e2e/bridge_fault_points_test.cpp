// The bridge SIGKILLed at each of its named fault points (OUTPOST_FAULT,
// src/common/fault_point.h) and restarted: every event the gateway side
// published reaches RocketMQ, RocketMQ holds nothing the gateway side did
// not publish, and repeats are counted (at least once). RocketMQ is read
// from outside our code (mqadmin printMsg).
#include <cstdlib>

#include "bridge_harness.h"
#include "common/fault_point.h"

using namespace outpost::testing;

namespace {

// The hit that kills, mid-stream of 120 events: a fault point is hit once
// per RocketMQ request, so once per message on the single path and once per
// batch (at least twelve of 16 at most: six devices, twenty events each)
// on the batched one.
unsigned long kill_at_hit(int batch_messages) { return batch_messages == 1 ? 40 : 5; }

// Starts `bridge` with OUTPOST_FAULT=<point>:<hit> in its environment only.
void start_armed(BridgeProcess& bridge, const std::string& fault) {
    ::setenv("OUTPOST_FAULT", fault.c_str(), 1);
    bridge.start();
    ::unsetenv("OUTPOST_FAULT");
}

struct Stored {
    std::size_t messages = 0;
    std::vector<std::string> missing;  // published, not in RocketMQ
    std::vector<std::string> phantom;  // in RocketMQ, never published
};

Stored look_in_rocketmq(const std::string& topic, const std::set<std::string>& ids) {
    const std::vector<StoredMessage> messages = messages_with_keys(topic, ids);
    Stored stored;
    stored.messages = messages.size();
    stored.missing = missing_keys(messages, ids);
    for (const StoredMessage& message : messages) {
        if (ids.count(message.keys) == 0) stored.phantom.push_back(message.keys);
    }
    return stored;
}

}  // namespace

TEST_CASE(
    "a bridge killed at each bridge fault point and restarted loses nothing and stores no "
    "phantom") {
    // This process reads OUTPOST_FAULT once; freeze it as unset before the
    // children get theirs.
    REQUIRE(outpost::armed_fault_point() == nullptr);
    const int batch_messages = GENERATE(1, 16);  // the single path, then the batched one
    const unsigned long kKillAtHit = kill_at_hit(batch_messages);
    INFO("batch.max_messages " << batch_messages);
    for (const outpost::FaultPointInfo& point : outpost::kFaultPoints) {
        if (std::string(point.workload) != "bridge") continue;
        const std::string name = point.name;
        SECTION(name) {
            TempDir dir;
            Mosquitto broker;
            const std::string suffix = name.substr(name.find('.') + 1) + "_" +
                                       std::to_string(batch_messages) + "_" + run_id();
            const std::string alarms = "e2e_bridge_" + suffix;
            const std::string client_id = "bridge-fault-" + suffix;
            create_rocketmq_topic(alarms, 4);
            nlohmann::json config = bridge_config(broker.uri(), client_id, alarms,
                                                  "e2e_bridge_q_" + suffix, dir.file("status.json"));
            config["batch"] = {{"max_messages", batch_messages}};
            BridgeProcess bridge(dir, "bridge", config);
            start_armed(bridge, name + ":" + std::to_string(kKillAtHit));

            const std::vector<GatewayEvent> events = make_events(2, 3, 20);  // 120 events
            GatewayPublisher gateway(broker.uri(), "gw-fault-" + suffix);
            gateway.publish_all(outgoing(events));  // the broker holds what the bridge lacks
            const bool died = wait_until([&] { return !bridge.running(); },
                                         std::chrono::seconds(60), std::chrono::milliseconds(20));
            INFO("OUTPOST_FAULT=" << name << ":" << kKillAtHit << " (" << point.where << ")");
            if (!died) FAIL("the armed bridge still runs; its log:\n" << bridge.log());
            const std::size_t acked_at_kill = pubacks_from(broker, client_id);
            CHECK(acked_at_kill < events.size());

            bridge.start();  // no fault: the same session, its queue redelivered
            const bool all_acked =
                wait_until([&] { return pubacks_from(broker, client_id) >= events.size(); },
                           std::chrono::seconds(120), std::chrono::milliseconds(250));
            if (!all_acked) FAIL("not all acknowledged; status: " << bridge.status().dump());
            const Stored stored = look_in_rocketmq(alarms, ids_of(events));
            INFO("missing: " << stored.missing.size() << ", phantom: " << stored.phantom.size()
                             << ", stored: " << stored.messages);
            CHECK(stored.missing.empty());
            CHECK(stored.phantom.empty());
            if (name == "bridge.after_send") {
                // SEND_OK came, the PUBACK did not: the message is delivered
                // again and sent again, which is why consumers dedupe.
                CHECK(stored.messages > events.size());
            }
            std::printf(
                "# batch %d, %s:%lu: %zu events, %zu acknowledged before the kill, %zu stored "
                "(%zu repeats)\n",
                batch_messages, name.c_str(), kKillAtHit, events.size(), acked_at_kill, stored.messages,
                stored.messages - events.size());
        }
    }
}
