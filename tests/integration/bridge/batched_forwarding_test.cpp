// The batched path (batch.max_messages > 1, the default on tcp://): alarms
// of several devices reach RocketMQ in SEND_BATCH_MESSAGE requests, exactly
// once and in order per device, each acknowledged over MQTT only after its
// batch's SEND_OK and confirmed to its gateway by a receipt; a bridge killed
// in the middle loses nothing.
#include <nlohmann/json.hpp>

#include "receipts_harness.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

// (device, seq) of a stored alarm, from its body: the gateway's envelope.
std::pair<std::string, std::int64_t> device_and_seq(const StoredMessage& message) {
    const nlohmann::json envelope = nlohmann::json::parse(message.body, nullptr, false);
    if (!envelope.is_object()) return {"", -1};
    return {envelope.value("deviceId", ""), envelope.value("seq", std::int64_t{-1})};
}

// Per device, the seqs of `stored` in queue order (first stores only: a
// resend after a crash repeats an event later in the queue), after checking
// that each device used one queue.
std::map<std::string, std::vector<std::int64_t>> seqs_by_device(
    std::vector<StoredMessage> stored) {
    std::sort(stored.begin(), stored.end(),
              [](const StoredMessage& a, const StoredMessage& b) {
                  return a.queue_offset < b.queue_offset;
              });
    std::map<std::string, std::vector<std::int64_t>> seqs;
    std::map<std::string, int> queue_of;
    std::set<std::string> seen;
    for (const StoredMessage& message : stored) {
        const auto [device, seq] = device_and_seq(message);
        if (queue_of.count(device) == 0) queue_of[device] = message.queue_id;
        INFO("device " << device);
        CHECK(queue_of[device] == message.queue_id);
        if (seen.insert(message.keys).second) seqs[device].push_back(seq);
    }
    return seqs;
}

bool increasing(const std::vector<std::int64_t>& seqs) {
    return std::is_sorted(seqs.begin(), seqs.end()) &&
           std::adjacent_find(seqs.begin(), seqs.end()) == seqs.end();
}

}  // namespace

TEST_CASE("alarms of four devices travel in batches, exactly once in device order, each confirmed") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_batch_ok_" + run_id();
    const std::string client_id = "bridge-batch-" + run_id();
    create_rocketmq_topic(alarms, 4);
    nlohmann::json config = receipts_bridge_config(broker, client_id, alarms,
                                                   "it_batch_ok_q_" + run_id(),
                                                   dir.file("status.json"), true);
    config["batch"] = {{"max_messages", 32}, {"linger_ms", 20}};
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();
    REQUIRE(bridge.logged("batches of up to 32"));

    ReceiptGateway gateway(dir, broker, "gw-batch", 60000);  // long: nothing is published twice
    const std::set<std::string> ids = gateway.record(400);   // over dev-0 .. dev-3
    {
        const bool confirmed =
            wait_until([&] { return gateway.all_confirmed(ids.size()); }, std::chrono::seconds(90));
        INFO("gateway: " << gateway.describe() << " | bridge: " << bridge.status().dump()
                         << " | log: " << bridge.log());
        REQUIRE(confirmed);
    }
    CHECK(gateway.status().republished == 0);
    const nlohmann::json status = bridge.status();
    CHECK(status["forwarded"] == ids.size());
    CHECK(status["batched"] == ids.size());
    const std::uint64_t batches = status["batches"].get<std::uint64_t>();
    CHECK(batches > 0);
    CHECK(batches < ids.size());  // more than one message per request on average
    CHECK(pubacks_from(broker, client_id) == ids.size());

    const std::vector<StoredMessage> stored = messages_with_keys(alarms, ids);
    CHECK(missing_keys(stored, ids).empty());
    CHECK(stored.size() == ids.size());  // exactly once
    const auto seqs = seqs_by_device(stored);
    CHECK(seqs.size() == 4);
    for (const auto& [device, device_seqs] : seqs) {
        INFO("device " << device);
        CHECK(device_seqs.size() == 100);
        CHECK(increasing(device_seqs));
    }
    std::printf("# batched: %zu alarms in %llu batches (%.1f per batch)\n", ids.size(),
                static_cast<unsigned long long>(batches),
                static_cast<double>(ids.size()) / static_cast<double>(batches));
}

TEST_CASE("a batched bridge SIGKILLed mid-stream acknowledged only what RocketMQ stored, and loses nothing") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_batch_kill_" + run_id();
    const std::string client_id = "bridge-batch-kill-" + run_id();
    create_rocketmq_topic(alarms, 4);
    nlohmann::json config = bridge_config(broker.uri(), client_id, alarms,
                                          "it_batch_kill_q_" + run_id(), dir.file("status.json"));
    // Paced, so the kill lands mid-stream; batches still fill while paced.
    config["limits"] = {{"max_messages_per_s", 200}};
    config["batch"] = {{"max_messages", 16}, {"linger_ms", 50}};
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();

    const std::vector<GatewayEvent> events = make_events(1, 4, 100);  // 400 events, 4 devices
    BackgroundGateway gateway(broker.uri(), "gw-batch-kill-" + run_id(), outgoing(events));
    const bool midway = wait_until([&] { return bridge.counter("forwarded") >= 100; },
                                   std::chrono::seconds(60), std::chrono::milliseconds(5));
    bridge.kill9();
    REQUIRE(gateway.join().empty());
    REQUIRE(midway);
    const std::set<std::string> ids = ids_of(events);
    // No PUBACK before SEND_OK: every acknowledged message is in RocketMQ.
    const std::size_t acked_before_restart = pubacks_from(broker, client_id);
    const std::vector<StoredMessage> stored_at_kill = print_messages(alarms);
    std::set<std::string> distinct_at_kill;
    for (const StoredMessage& message : stored_at_kill) distinct_at_kill.insert(message.keys);
    INFO("acknowledged before restart: " << acked_before_restart
                                         << ", stored: " << distinct_at_kill.size());
    CHECK(acked_before_restart < events.size());  // the kill really was mid-stream
    CHECK(acked_before_restart <= distinct_at_kill.size());

    bridge.start();  // same client id: the session and what it did not acknowledge are there
    require_all_acknowledged(broker, client_id, events.size(), bridge);
    CHECK(pubacks_from(broker, client_id) == events.size());
    const std::vector<StoredMessage> stored = messages_with_keys(alarms, ids);
    CHECK(missing_keys(stored, ids).empty());
    CHECK(stored.size() >= events.size());  // at least once: an unacknowledged batch is resent
    const auto seqs = seqs_by_device(stored);
    for (const auto& [device, device_seqs] : seqs) {
        INFO("device " << device);
        CHECK(device_seqs.size() == 100);
        CHECK(increasing(device_seqs));
    }
    std::printf("# batched crash: %zu events, %zu stored (%zu duplicates), acknowledged before "
                "the kill %zu of %zu stored\n",
                events.size(), stored.size(), stored.size() - events.size(),
                acked_before_restart, distinct_at_kill.size());
}

TEST_CASE("a backlog queued while the batched bridge was stopped drains when it returns") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_batch_backlog_" + run_id();
    const std::string client_id = "bridge-batch-backlog-" + run_id();
    create_rocketmq_topic(alarms, 4);
    BridgeProcess bridge(dir, "bridge",
                         bridge_config(broker.uri(), client_id, alarms,
                                       "it_batch_backlog_q_" + run_id(), dir.file("status.json")));
    bridge.start();  // creates the session and its subscription
    bridge.terminate();
    // mosquitto 2.0.11 sends a resumed session its whole backlog at once,
    // whatever its Receive Maximum: it must all be taken.
    const std::vector<GatewayEvent> events = make_events(1, 4, 250);  // 1000 events
    {
        GatewayPublisher gateway(broker.uri(), "gw-batch-backlog-" + run_id());
        REQUIRE_NOTHROW(gateway.publish_all(outgoing(events)));
    }
    bridge.start();
    require_all_acknowledged(broker, client_id, events.size(), bridge);
    CHECK(pubacks_from(broker, client_id) == events.size());
    CHECK_FALSE(bridge.logged("Receive Maximum exceeded"));
    const std::set<std::string> ids = ids_of(events);
    const std::vector<StoredMessage> stored = messages_with_keys(alarms, ids);
    CHECK(missing_keys(stored, ids).empty());
    CHECK(stored.size() == events.size());
    for (const auto& [device, device_seqs] : seqs_by_device(stored)) {
        INFO("device " << device);
        CHECK(device_seqs.size() == 250);
        CHECK(increasing(device_seqs));
    }
    std::printf("# batched backlog: %zu events in %llu batches\n", events.size(),
                static_cast<unsigned long long>(bridge.counter("batches")));
}
