// What the bridge integration tests share: the runner's RocketMQ
// (OUTPOST_ROCKETMQ_ENV), checks of RocketMQ from outside our code (mqadmin
// through scripts/rocketmq.sh), outpost-bridge as a child process, and a
// gateway-like paho publisher (MQTT v5, QoS 1, envelopes like the store's).
//
// Test scaffolding: failures throw or fail a REQUIRE.
#ifndef OUTPOST_TESTS_BRIDGE_HARNESS_H
#define OUTPOST_TESTS_BRIDGE_HARNESS_H

#include <mqtt/async_client.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "mochi_fixture.h"
#include "mosquitto_fixture.h"
#include "sample_envelope.h"
#include "temp_dir.h"

namespace outpost::testing {

// NAMESRV_ADDR, BROKER_ADDR, ROCKETMQ_DIR of the runner's RocketMQ; filled
// by main() (bridge_it_main.cpp) before any test runs.
std::map<std::string, std::string>& rocketmq_env();

// A name no earlier run used: topics and client ids get it as a suffix.
inline const std::string& run_id() {
    static const std::string id =
        std::to_string(std::chrono::system_clock::now().time_since_epoch() /
                       std::chrono::milliseconds(1) % 100000000);
    return id;
}

// Polls `done` every `step` until it holds or `limit` passes.
inline bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit,
                       std::chrono::milliseconds step = std::chrono::milliseconds(100)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        if (done()) return true;
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(step);
    }
}

// Runs scripts/rocketmq.sh with `arguments`; returns its stdout (stderr
// too unless `quiet`: mqadmin logs noise there). `exit_status`, when given,
// gets its exit status (-1 if it could not run).
inline std::string rocketmq_script(const std::string& arguments, bool quiet = false,
                                   int* exit_status = nullptr) {
    const std::string command = std::string(OUTPOST_SOURCE_ROOT) + "/scripts/rocketmq.sh " +
                                arguments + (quiet ? " 2>/dev/null" : " 2>&1");
    std::string output;
    if (exit_status != nullptr) *exit_status = -1;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return output;
    char buffer[65536];
    std::size_t got;
    while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, got);
    const int status = pclose(pipe);
    if (exit_status != nullptr && WIFEXITED(status)) *exit_status = WEXITSTATUS(status);
    return output;
}

inline std::string mqadmin(const std::string& arguments) {
    return rocketmq_script("admin " + rocketmq_env()["ROCKETMQ_DIR"] + " " + arguments, true);
}

// One message as `mqadmin printMsg` shows it.
struct StoredMessage {
    std::string message_id;  // UNIQ_KEY, what queryMsgByKey lists
    std::string broker_name;
    int queue_id = -1;
    long long queue_offset = -1;
    std::string keys;
    std::string tags;
    std::string reason;  // OUTPOST_REASON property, quarantine only
    std::string body;
};

// "name=value" inside `text` from `from`, the value ending at ',' or '}'.
inline std::string java_field(const std::string& text, const std::string& name,
                              std::size_t from = 0) {
    std::size_t at = text.find(name + "=", from);
    if (at == std::string::npos) return "";
    at += name.size() + 1;
    const std::size_t end = text.find_first_of(",}", at);
    return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// Every message of `topic`, read by mqadmin printMsg (one JVM start, so it
// is the one check from outside that scales to a whole scenario).
inline std::vector<StoredMessage> print_messages(const std::string& topic) {
    std::vector<StoredMessage> messages;
    const std::string output = mqadmin("printMsg -t " + topic + " -d true");
    std::size_t at = 0;
    while ((at = output.find("MSGID: ", at)) != std::string::npos) {
        const std::size_t end = output.find('\n', at);
        const std::string line = output.substr(at, end == std::string::npos ? end : end - at);
        at = end == std::string::npos ? output.size() : end;
        StoredMessage message;
        message.message_id = line.substr(7, line.find(' ', 7) - 7);
        message.broker_name = java_field(line, "brokerName");
        message.queue_id = std::stoi("0" + java_field(line, "queueId"));
        message.queue_offset = std::stoll("0" + java_field(line, "queueOffset"));
        const std::size_t properties = line.find("properties={");
        if (properties != std::string::npos) {
            message.keys = java_field(line, "KEYS", properties);
            message.tags = java_field(line, "TAGS", properties);
            message.reason = java_field(line, "OUTPOST_REASON", properties);
        }
        const std::size_t body = line.find(" BODY: ");
        if (body != std::string::npos) message.body = line.substr(body + 7);
        messages.push_back(std::move(message));
    }
    return messages;
}

// print_messages until every id in `wanted` is among the keys (the broker's
// consume queues lag the commit log slightly), a few attempts at most.
inline std::vector<StoredMessage> messages_with_keys(const std::string& topic,
                                                     const std::set<std::string>& wanted) {
    std::vector<StoredMessage> messages;
    for (int attempt = 0; attempt < 4; ++attempt) {
        messages = print_messages(topic);
        std::set<std::string> missing = wanted;
        for (const StoredMessage& message : messages) {
            std::size_t start = 0;
            while (start <= message.keys.size()) {
                const std::size_t space = message.keys.find(' ', start);
                missing.erase(message.keys.substr(start, space - start));
                if (space == std::string::npos) break;
                start = space + 1;
            }
        }
        if (missing.empty()) break;
        std::this_thread::sleep_for(std::chrono::seconds(2));
    }
    return messages;
}

// The ids of `wanted` that no message of `messages` carries in its keys.
inline std::vector<std::string> missing_keys(const std::vector<StoredMessage>& messages,
                                             const std::set<std::string>& wanted) {
    std::set<std::string> missing = wanted;
    for (const StoredMessage& message : messages) {
        for (const std::string& id : wanted) {
            if (message.keys.find(id) != std::string::npos) missing.erase(id);
        }
    }
    return {missing.begin(), missing.end()};
}

// The broker the tests marked "either broker" run against: mosquitto, or,
// when OUTPOST_BRIDGE_TEST_BROKER=mochi (the second registration of those
// tests in meson.build), mochi-mqtt (mochi_fixture.h).
inline bool second_broker_selected() {
    const char* name = std::getenv("OUTPOST_BRIDGE_TEST_BROKER");
    return name != nullptr && std::string(name) == "mochi";
}

// Runs `body(broker)` with a fresh broker of the selected kind; `body` is a
// generic lambda (both fixtures have uri(), log(), start() and stop()).
template <typename Body>
void with_test_broker(Body body) {
    if (second_broker_selected()) {
        MochiBroker broker;
        body(broker);
    } else {
        Mosquitto broker;
        body(broker);
    }
}

// PUBACKs the broker received from `client_id`, read from its log
// (mosquitto's log_type all, or the same line from our mochi wrapper): the
// broker's own record of what the bridge acknowledged. A QoS 1 message is
// acknowledged once; one not acknowledged is delivered again.
template <typename Broker>
std::size_t pubacks_from(const Broker& broker, const std::string& client_id) {
    const std::string log = broker.log();
    const std::string needle = "Received PUBACK from " + client_id + " ";
    std::size_t count = 0;
    for (std::size_t at = log.find(needle); at != std::string::npos;
         at = log.find(needle, at + needle.size())) {
        ++count;
    }
    return count;
}

// PUBACKs from all `sessions` sessions of a bridge whose mqtt.client_id is
// `base_id` (session 0 uses base_id, session i base_id-i).
template <typename Broker>
std::size_t pubacks_from_sessions(const Broker& broker, const std::string& base_id, int sessions) {
    std::size_t total = 0;
    for (int i = 0; i < sessions; ++i) {
        total += pubacks_from(broker, i == 0 ? base_id : base_id + "-" + std::to_string(i));
    }
    return total;
}

// A bridge configuration for tests: quick status, short keep-alive so a
// held callback makes the broker drop the connection (the redelivery path).
inline nlohmann::json bridge_config(const std::string& mqtt_uri, const std::string& client_id,
                                    const std::string& alarm_topic_name,
                                    const std::string& quarantine_topic,
                                    const std::string& status_file) {
    return nlohmann::json{
        {"mqtt",
         {{"uri", mqtt_uri},
          {"client_id", client_id},
          {"shared_group", "it-" + run_id()},
          {"keepalive_s", 5},
          {"reconnect_min_ms", 100},
          {"reconnect_max_ms", 1000}}},
        {"rocketmq",
         {{"name_servers", rocketmq_env()["NAMESRV_ADDR"]},
          {"producer_group", "outpost_bridge_it"},
          {"send_timeout_ms", 2000},
          {"max_attempts", 2},
          {"retry_pause_max_ms", 500}}},
        {"mapping",
         {{{"mqtt_filter", "outpost/+/alarm/+"},
           {"rocketmq_topic", alarm_topic_name},
           {"tag", "${payload.severity}"}}}},
        {"quarantine_topic", quarantine_topic},
        {"status", {{"file", status_file}, {"interval_ms", 200}, {"log_to_stderr", false}}}};
}

// outpost-bridge as a child process with its config, log and status file in
// `dir`.
class BridgeProcess final {
  public:
    BridgeProcess(const TempDir& dir, const std::string& name, const nlohmann::json& config)
        : config_path_(dir.file(name + ".json")),
          log_path_(dir.file(name + ".log")),
          status_path_(config["status"]["file"].get<std::string>()) {
        std::ofstream(config_path_) << config.dump(2);
    }
    ~BridgeProcess() { terminate(); }
    BridgeProcess(const BridgeProcess&) = delete;
    BridgeProcess& operator=(const BridgeProcess&) = delete;

    // Starts it (with `extra_env`, "NAME=value", added to the environment)
    // and waits until it reports an MQTT connection.
    void start(const std::vector<std::string>& extra_env = {}) {
        std::remove(status_path_.c_str());
        pid_ =
            spawn_logged({OUTPOST_BRIDGE_BINARY, "--config", config_path_}, log_path_, extra_env);
        const bool connected = wait_until(
            [this] {
                const nlohmann::json now = status();
                return now.value("mqtt_connected", false);
            },
            std::chrono::seconds(30));
        INFO("bridge log: " << log());
        REQUIRE(connected);
    }
    void kill9() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }
    void terminate() {
        terminate_child(pid_, std::chrono::seconds(30));
        pid_ = -1;
    }
    bool running() { return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; }
    // The latest status line (an empty object before the first one).
    nlohmann::json status() const {
        nlohmann::json parsed = nlohmann::json::parse(read_file(status_path_), nullptr, false);
        return parsed.is_object() ? parsed : nlohmann::json::object();
    }
    std::uint64_t counter(const char* name) const { return status().value(name, 0ull); }
    // The last lines of its log on one line (" | " between them): Catch2's
    // TAP output takes an INFO message with a newline for garbage.
    std::string log() const { return one_line(tail_of(read_file(log_path_), 40)); }
    bool logged(const std::string& text) const {
        return read_file(log_path_).find(text) != std::string::npos;
    }

  private:
    const std::string config_path_;
    const std::string log_path_;
    const std::string status_path_;
    pid_t pid_ = -1;
};

// Waits up to two minutes until `broker` received `count` PUBACKs from
// `client_id`; REQUIREs it, showing `bridge`'s status and log otherwise.
template <typename Broker>
void require_all_acknowledged(const Broker& broker, const std::string& client_id,
                              std::size_t count, const BridgeProcess& bridge) {
    const bool all_acked = wait_until([&] { return pubacks_from(broker, client_id) >= count; },
                                      std::chrono::seconds(120), std::chrono::milliseconds(250));
    INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
    REQUIRE(all_acked);
}

// A gateway's MQTT side: MQTT v5, QoS 1, a PUBACK awaited for every message
// (in windows below mosquitto's default Receive Maximum of 20). Throws on
// failure (no Catch2 assertions: it may run on a background thread).
class GatewayPublisher final {
  public:
    GatewayPublisher(const std::string& uri, const std::string& client_id)
        : client_(uri, client_id, mqtt::create_options(MQTTVERSION_5), nullptr) {
        auto options = mqtt::connect_options_builder()
                           .mqtt_version(MQTTVERSION_5)
                           .clean_start(true)
                           .finalize();
        if (!client_.connect(options)->wait_for(std::chrono::seconds(10))) {
            throw std::runtime_error("publisher connect to " + uri + " timed out");
        }
    }
    ~GatewayPublisher() {
        try {
            client_.disconnect()->wait_for(std::chrono::seconds(5));
        } catch (const mqtt::exception&) {
        }
    }

    struct Outgoing {
        std::string topic;
        std::string payload;
        std::optional<std::pair<std::string, std::string>> user_property;
    };

    void publish_all(const std::vector<Outgoing>& messages) {
        constexpr std::size_t kWindow = 10;
        for (std::size_t start = 0; start < messages.size(); start += kWindow) {
            std::vector<mqtt::delivery_token_ptr> tokens;
            for (std::size_t i = start; i < std::min(messages.size(), start + kWindow); ++i) {
                auto message = mqtt::make_message(messages[i].topic, messages[i].payload, 1, false);
                if (messages[i].user_property) {
                    mqtt::properties properties;
                    properties.add(mqtt::property(mqtt::property::USER_PROPERTY,
                                                  messages[i].user_property->first,
                                                  messages[i].user_property->second));
                    message->set_properties(properties);
                }
                tokens.push_back(client_.publish(message));
            }
            for (auto& token : tokens) {
                if (!token->wait_for(std::chrono::seconds(30))) {
                    throw std::runtime_error("no PUBACK within 30 s");
                }
            }
        }
    }

    void publish(const std::string& topic, const std::string& payload) {
        publish_all({{topic, payload, std::nullopt}});
    }

  private:
    mqtt::async_client client_;
};

// One alarm event as the gateway publishes it.
struct GatewayEvent {
    std::string gateway;
    std::string device;
    std::int64_t seq;
    std::string event_id;

    GatewayPublisher::Outgoing outgoing() const {
        return {
            alarm_topic(gateway, device),
            sample_envelope_text(gateway, device, seq, event_id, seq % 2 ? "major" : "critical"),
            std::nullopt};
    }
};

// `per_device` events for each device of each gateway, interleaved the way
// several gateways publish at once; seq counts from 1 per device.
inline std::vector<GatewayEvent> make_events(int gateways, int devices, int per_device) {
    std::vector<GatewayEvent> events;
    for (int seq = 1; seq <= per_device; ++seq) {
        for (int g = 0; g < gateways; ++g) {
            for (int d = 0; d < devices; ++d) {
                events.push_back(GatewayEvent{"gw-" + std::to_string(g), "dev-" + std::to_string(d),
                                              seq, new_event_id()});
            }
        }
    }
    return events;
}

inline std::vector<GatewayPublisher::Outgoing> outgoing(const std::vector<GatewayEvent>& events) {
    std::vector<GatewayPublisher::Outgoing> messages;
    for (const GatewayEvent& event : events) messages.push_back(event.outgoing());
    return messages;
}

// A gateway publishing `messages` from a thread of its own, while the test
// kills something under it. join() waits for it and returns what went
// wrong, empty if nothing did.
class BackgroundGateway final {
  public:
    BackgroundGateway(std::string uri, std::string client_id,
                      std::vector<GatewayPublisher::Outgoing> messages)
        : thread_([this, uri = std::move(uri), client_id = std::move(client_id),
                   messages = std::move(messages)] {
              try {
                  GatewayPublisher gateway(uri, client_id);
                  gateway.publish_all(messages);
              } catch (const std::exception& error) {
                  error_ = error.what();
              }
          }) {}
    ~BackgroundGateway() {
        if (thread_.joinable()) thread_.join();
    }
    BackgroundGateway(const BackgroundGateway&) = delete;
    BackgroundGateway& operator=(const BackgroundGateway&) = delete;

    std::string join() {
        thread_.join();
        return error_;
    }

  private:
    std::string error_;   // written by the thread, read after join()
    std::thread thread_;  // last: starts once error_ exists
};

inline std::set<std::string> ids_of(const std::vector<GatewayEvent>& events) {
    std::set<std::string> ids;
    for (const GatewayEvent& event : events) ids.insert(event.event_id);
    return ids;
}

// Creates `topic` with `queues` queues on the runner's broker and waits for
// its route (tests/integration/rocketmq_producer_test.cpp does the same).
// With a second broker group (BROKER_B_ADDR in the env), on both brokers,
// and waits until the route has write queues on both.
void create_rocketmq_topic(const std::string& topic, int queues);

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_BRIDGE_HARNESS_H
