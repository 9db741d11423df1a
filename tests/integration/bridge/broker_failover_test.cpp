// Two broker groups (outpost-broker-a and -b, one name server), started by
// this test with ROCKETMQ_BROKERS=2 scripts/rocketmq.sh: broker b is
// SIGKILLed while alarms of several devices flow. The bridge goes on
// forwarding through broker a, acknowledges (PUBACK, receipt) only what
// RocketMQ stored, loses nothing, and writes to broker b again once it is
// back. The runner's RocketMQ is not used.
#include <mqtt/async_client.h>

#include <cstdlib>
#include <mutex>

#include "bridge_harness.h"
#include "common/receipt_contract.h"
#include "env_file.h"
#include "rocketmq/queue_selector.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

constexpr int kQueuesPerBroker = 4;
const std::string kBrokerA = "outpost-broker-a";
const std::string kBrokerB = "outpost-broker-b";

// A cluster of two broker groups in `dir`/rocketmq, stopped (every JVM) when
// the test ends however it ends. rocketmq_env() names it while it lives.
class TwoBrokerCluster final {
  public:
    explicit TwoBrokerCluster(const TempDir& dir) : dir_(dir.file("rocketmq")) {
        ::setenv("ROCKETMQ_BROKERS", "2", 1);
        const std::string started = rocketmq_script("start " + dir_);
        ::unsetenv("ROCKETMQ_BROKERS");
        rocketmq_env() = read_env_file(dir_ + "/env");
        INFO("rocketmq.sh start: " << one_line(started));
        REQUIRE(!rocketmq_env()["BROKER_B_ADDR"].empty());
    }
    ~TwoBrokerCluster() { rocketmq_script("stop " + dir_, true); }
    TwoBrokerCluster(const TwoBrokerCluster&) = delete;
    TwoBrokerCluster& operator=(const TwoBrokerCluster&) = delete;

    // `command` is kill-broker, stop-broker or start-broker; returns its output.
    std::string broker(const std::string& command, const std::string& which) {
        const std::string output = rocketmq_script(command + " " + dir_ + " " + which);
        rocketmq_env() = read_env_file(dir_ + "/env");
        return output;
    }

  private:
    const std::string dir_;
};

// Every receipt the bridge publishes to any gateway (outpost/+/receipt),
// with the time each eventId was first confirmed.
class ReceiptListener final {
  public:
    ReceiptListener(const std::string& uri, const std::string& client_id)
        : client_(uri, client_id, mqtt::create_options(MQTTVERSION_5), nullptr) {
        client_.set_message_callback([this](mqtt::const_message_ptr message) {
            const auto parsed = receipt::parse(message->to_string());
            std::lock_guard<std::mutex> lock(mutex_);
            if (const auto* receipt = std::get_if<receipt::Receipt>(&parsed)) {
                for (const std::string& id : receipt->event_ids) {
                    confirmed_.emplace(id, std::chrono::steady_clock::now());
                }
            } else {
                ++malformed_;
            }
        });
        auto options = mqtt::connect_options_builder()
                           .mqtt_version(MQTTVERSION_5)
                           .clean_start(true)
                           .finalize();
        if (!client_.connect(options)->wait_for(std::chrono::seconds(10)) ||
            !client_.subscribe("outpost/+/receipt", 1)->wait_for(std::chrono::seconds(10))) {
            throw std::runtime_error("receipt listener could not subscribe on " + uri);
        }
    }
    ~ReceiptListener() {
        try {
            client_.disconnect()->wait_for(std::chrono::seconds(5));
        } catch (const mqtt::exception&) {
        }
    }
    ReceiptListener(const ReceiptListener&) = delete;
    ReceiptListener& operator=(const ReceiptListener&) = delete;

    std::map<std::string, std::chrono::steady_clock::time_point> confirmed() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return confirmed_;
    }
    bool all_confirmed(const std::set<std::string>& ids) const {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const std::string& id : ids) {
            if (confirmed_.count(id) == 0) return false;
        }
        return true;
    }
    int malformed() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return malformed_;
    }

  private:
    mutable std::mutex mutex_;
    std::map<std::string, std::chrono::steady_clock::time_point> confirmed_;  // guarded by mutex_
    int malformed_ = 0;                                                       // guarded by mutex_
    mqtt::async_client client_;  // last: its callback uses the members above
};

// The broker group a device's queue is on while both are up: the producer
// indexes the route's write queues (a's, then b's) by the device's hash.
std::string home_broker(const std::string& device) {
    return rocketmq::select_queue_index(device, 2 * kQueuesPerBroker) < kQueuesPerBroker ? kBrokerA
                                                                                         : kBrokerB;
}

// The stored message carrying `id` (in its keys), or nullptr.
const StoredMessage* stored_with_key(const std::vector<StoredMessage>& messages,
                                     const std::string& id) {
    for (const StoredMessage& message : messages) {
        if (message.keys.find(id) != std::string::npos) return &message;
    }
    return nullptr;
}

std::set<std::string> joined(std::initializer_list<const std::vector<GatewayEvent>*> parts) {
    std::set<std::string> ids;
    for (const auto* part : parts) {
        const std::set<std::string> more = ids_of(*part);
        ids.insert(more.begin(), more.end());
    }
    return ids;
}

}  // namespace

TEST_CASE(
    "one of two broker groups SIGKILLed mid-stream: forwarding goes on through the other, "
    "nothing acknowledged is lost, and the restarted broker is written again") {
    TempDir dir;
    TwoBrokerCluster cluster(dir);
    Mosquitto broker;
    const std::string alarms = "it_bridge_failover_" + run_id();
    const std::string quarantine = "it_bridge_failover_q_" + run_id();
    const std::string client_id = "bridge-failover-" + run_id();
    create_rocketmq_topic(alarms, kQueuesPerBroker);
    create_rocketmq_topic(quarantine, 1);

    // Two gateways, six devices: both broker groups hold some devices' queues.
    constexpr int kGateways = 2;
    constexpr int kDevices = 6;
    std::set<std::string> on_a, on_b;
    for (int d = 0; d < kDevices; ++d) {
        const std::string device = "dev-" + std::to_string(d);
        (home_broker(device) == kBrokerA ? on_a : on_b).insert(device);
    }
    REQUIRE(!on_a.empty());
    REQUIRE(!on_b.empty());

    ReceiptListener receipts(broker.uri(), "receipts-failover-" + run_id());
    nlohmann::json config =
        bridge_config(broker.uri(), client_id, alarms, quarantine, dir.file("status.json"));
    config["receipts"] = {{"enabled", true}, {"max_ids", 50}, {"flush_ms", 100}};
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();
    GatewayPublisher gateway(broker.uri(), "gw-failover-" + run_id());
    const auto describe = [&] {
        return "status: " + bridge.status().dump() + " | bridge log: " + bridge.log();
    };

    // Both brokers up: each device's events go to its home broker.
    const std::vector<GatewayEvent> before = make_events(kGateways, kDevices, 2);
    gateway.publish_all(outgoing(before));
    {
        const bool confirmed = wait_until([&] { return receipts.all_confirmed(ids_of(before)); },
                                          std::chrono::seconds(60));
        INFO(describe());
        REQUIRE(confirmed);
    }

    // Broker b is SIGKILLed after the third of eight rounds (one event per
    // device and gateway each), while the bridge still forwards the rounds
    // before; the rounds after are published once it is gone.
    std::vector<GatewayEvent> around_kill, after_kill;
    std::chrono::steady_clock::time_point killed_at;
    for (int round = 0; round < 8; ++round) {
        const std::vector<GatewayEvent> events = make_events(kGateways, kDevices, 1);
        gateway.publish_all(outgoing(events));
        std::vector<GatewayEvent>& part = round < 3 ? around_kill : after_kill;
        part.insert(part.end(), events.begin(), events.end());
        if (round == 2) {
            const std::string pid = rocketmq_env()["BROKER_B_PID"];
            const std::string killed = cluster.broker("kill-broker", "b");
            killed_at = std::chrono::steady_clock::now();
            INFO("kill-broker: " << one_line(killed));
            REQUIRE(read_file("/proc/" + pid + "/cmdline").empty());  // gone (or a zombie)
        }
    }
    // The broker is gone for good until start-broker: every event is
    // confirmed all the same, through broker a.
    {
        const bool confirmed =
            wait_until([&] { return receipts.all_confirmed(joined({&around_kill, &after_kill})); },
                       std::chrono::seconds(120));
        INFO(describe());
        REQUIRE(confirmed);
    }
    const std::map<std::string, std::chrono::steady_clock::time_point> confirmed_while_down =
        receipts.confirmed();

    // From outside (mqadmin, which now sees broker a only): every event
    // published after the kill, and confirmed, is stored on broker a.
    {
        const std::set<std::string> after_ids = ids_of(after_kill);
        const std::vector<StoredMessage> on_broker_a = messages_with_keys(alarms, after_ids);
        const std::vector<std::string> missing = missing_keys(on_broker_a, after_ids);
        std::vector<std::string> elsewhere, confirmed_unstored;
        for (const std::string& id : after_ids) {
            const StoredMessage* stored = stored_with_key(on_broker_a, id);
            if (stored != nullptr && stored->broker_name != kBrokerA) elsewhere.push_back(id);
            // No receipt ran ahead of SEND_OK: each of these ids confirmed
            // so far is in RocketMQ.
            if (stored == nullptr && confirmed_while_down.count(id) != 0) {
                confirmed_unstored.push_back(id);
            }
        }
        INFO(after_ids.size() << " events after the kill: " << missing.size() << " missing, "
                              << elsewhere.size() << " not on " << kBrokerA << ", "
                              << confirmed_unstored.size() << " confirmed but not stored | "
                              << describe());
        CHECK(missing.empty());
        CHECK(elsewhere.empty());
        CHECK(confirmed_unstored.empty());
    }
    // How soon the first device of broker b was confirmed through broker a.
    std::chrono::milliseconds failover{-1};
    for (const GatewayEvent& event : after_kill) {
        if (on_b.count(event.device) == 0) continue;
        const auto at = confirmed_while_down.at(event.event_id);
        const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(at - killed_at);
        if (failover.count() < 0 || took < failover) failover = took;
    }
    const std::uint64_t errors_while_down =
        bridge.status()["rocketmq_errors"].value("total", std::uint64_t{0});

    // Broker b returns; the producer's next route refresh (at most
    // route_refresh_interval, 30 s) gives its queues back: rounds go on
    // until one of broker b's devices is stored on broker b again.
    {
        const std::string restarted = cluster.broker("start-broker", "b");
        INFO("start-broker: " << one_line(restarted));
        REQUIRE(read_file("/proc/" + rocketmq_env()["BROKER_B_PID"] + "/cmdline")
                    .find("BrokerStartup") != std::string::npos);
    }
    const auto restarted_at = std::chrono::steady_clock::now();
    std::vector<GatewayEvent> after_restart;
    bool written_again = false;
    for (int round = 0; !written_again && round < 40; ++round) {
        const std::vector<GatewayEvent> events = make_events(kGateways, kDevices, 1);
        gateway.publish_all(outgoing(events));
        after_restart.insert(after_restart.end(), events.begin(), events.end());
        const bool confirmed = wait_until([&] { return receipts.all_confirmed(ids_of(events)); },
                                          std::chrono::seconds(60));
        INFO(describe());
        REQUIRE(confirmed);
        const std::vector<StoredMessage> stored = messages_with_keys(alarms, ids_of(events));
        for (const GatewayEvent& event : events) {
            const StoredMessage* message = stored_with_key(stored, event.event_id);
            if (message != nullptr && message->broker_name == kBrokerB) written_again = true;
        }
    }
    const auto back_after = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - restarted_at);
    CHECK(written_again);

    // Everything: every published event is readable in RocketMQ (what broker
    // b stored before it was killed included), each confirmed, each
    // acknowledged to mosquitto, and nothing confirmed that is not stored.
    const std::set<std::string> all = joined({&before, &around_kill, &after_kill, &after_restart});
    const std::vector<StoredMessage> stored = messages_with_keys(alarms, all);
    const std::vector<std::string> missing = missing_keys(stored, all);
    const auto confirmed = receipts.confirmed();
    std::vector<std::string> confirmed_unstored, away_from_home;
    for (const auto& entry : confirmed) {
        if (stored_with_key(stored, entry.first) == nullptr)
            confirmed_unstored.push_back(entry.first);
    }
    // Before the kill both broker groups were written, each device to its home.
    for (const GatewayEvent& event : before) {
        const StoredMessage* message = stored_with_key(stored, event.event_id);
        if (message != nullptr && message->broker_name != home_broker(event.device)) {
            away_from_home.push_back(event.event_id);
        }
    }
    // Broker a's devices never moved: two groups of equal queue counts
    // becoming one leave the survivor's devices on their queues
    // (docs/operations/bridge.md, "Several broker groups").
    std::map<std::string, std::set<std::string>> queues_of_a_devices;
    const std::vector<const std::vector<GatewayEvent>*> parts = {&before, &around_kill, &after_kill,
                                                                 &after_restart};
    for (const std::vector<GatewayEvent>* part : parts) {
        for (const GatewayEvent& event : *part) {
            const StoredMessage* message = stored_with_key(stored, event.event_id);
            if (message == nullptr || on_a.count(event.device) == 0) continue;
            queues_of_a_devices[event.device].insert(message->broker_name + "/" +
                                                     std::to_string(message->queue_id));
        }
    }
    std::size_t moved_a_devices = 0;
    for (const auto& entry : queues_of_a_devices) moved_a_devices += entry.second.size() > 1;
    INFO(all.size() << " events: " << missing.size() << " missing, " << confirmed.size()
                    << " confirmed, " << confirmed_unstored.size() << " confirmed but not stored, "
                    << away_from_home.size()
                    << " of the first rounds not on their device's broker, " << moved_a_devices
                    << " of broker a's devices on more than one queue | " << describe());
    CHECK(missing.empty());
    CHECK(confirmed.size() == all.size());
    CHECK(confirmed_unstored.empty());
    CHECK(away_from_home.empty());
    CHECK(queues_of_a_devices.size() == on_a.size());
    CHECK(moved_a_devices == 0);
    CHECK(receipts.malformed() == 0);
    CHECK(pubacks_from(broker, client_id) >= all.size());
    CHECK(bridge.status()["quarantined"]["total"] == 0);
    std::printf(
        "# failover: %zu events, %zu stored; %zu of %d devices on broker b; first of them "
        "confirmed through broker a %lld ms after the kill; %llu RocketMQ errors while b was "
        "down; written to b again %lld ms after start-broker; held up to %lld ms\n",
        all.size(), stored.size(), on_b.size(), kDevices, static_cast<long long>(failover.count()),
        static_cast<unsigned long long>(errors_while_down),
        static_cast<long long>(back_after.count()), bridge.status().value("held_ms_max", 0ll));
}
