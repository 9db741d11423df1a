#include "receipt_responder.h"

#include <fcntl.h>
#include <mqtt/async_client.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>
#include <vector>

#include "bridge/config.h"
#include "bridge/mqtt/receipt_batcher.h"
#include "bridge/mqtt/receipt_sender.h"
#include "common/receipt_contract.h"
#include "paho/client_setup.h"

extern char** environ;

namespace outpost::bench {
namespace {

constexpr const char* kAlarmFilter = "outpost/+/alarm/+";
constexpr int kGatewayLevel = 1;  // outpost/<gatewayId>/...
constexpr std::chrono::seconds kReadyLimit{10};

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "receipt responder: %s\n", what.c_str());
    std::exit(1);
}

// The ids that arrived, offered to the batcher at once (live) or kept until
// release() (hold). Called on paho's receive thread and on main's.
class Offers final {
  public:
    Offers(bridge::ReceiptBatcher& batcher, bool hold) : batcher_(batcher), holding_(hold) {}

    void arrived(const std::string& topic, const std::string& payload) {
        const nlohmann::json envelope = nlohmann::json::parse(payload, nullptr, false);
        const auto receipt_topic = receipt::topic_for_event(topic, kGatewayLevel);
        if (!envelope.is_object() || !receipt_topic) return;
        const std::string event_id = envelope.value("eventId", "");
        std::lock_guard<std::mutex> lock(mutex_);
        if (holding_) {
            held_.emplace_back(*receipt_topic, event_id);
        } else {
            batcher_.offer(*receipt_topic, event_id);
        }
    }

    void release() {
        std::lock_guard<std::mutex> lock(mutex_);
        holding_ = false;
        for (const auto& [topic, event_id] : held_) batcher_.offer(topic, event_id);
        held_.clear();
    }

  private:
    bridge::ReceiptBatcher& batcher_;
    std::mutex mutex_;
    bool holding_;                                           // guarded by mutex_
    std::vector<std::pair<std::string, std::string>> held_;  // guarded by mutex_
};

}  // namespace

int run_receipt_responder(int argc, char** argv) {
    if (argc != 5) fail("usage: --receipt-responder URI READY_FILE hold|live");
    const std::string uri = argv[2];
    bridge::MqttConfig sender_config;
    sender_config.endpoint.uri = uri;
    sender_config.endpoint.client_id = "bench-responder";
    auto sender = bridge::make_receipt_sender(sender_config);
    if (!sender) fail(sender.status().to_string());
    bridge::ReceiptBatcher batcher(bridge::ReceiptsConfig{}, **sender);
    Offers offers(batcher, std::string(argv[4]) == "hold");

    paho::ConnectSettings settings;
    settings.endpoint.uri = uri;
    settings.endpoint.client_id = "bench-responder-sub";
    auto client = paho::make_client(settings, "responder MQTT client");
    if (!client) fail(client.status().to_string());
    // Registered before connect (client_setup.h): the PUBACK to the broker
    // follows the callback's return, as in the bridge.
    (*client)->set_message_callback([&](mqtt::const_message_ptr message) {
        offers.arrived(message->get_topic(), message->to_string());
    });
    paho::PendingConnect pending;  // one attempt: a timeout ends the responder
    auto connack = paho::connect(**client, settings, "responder connect to " + uri, pending);
    if (!connack) fail(connack.status().to_string());
    try {
        (*client)->subscribe(kAlarmFilter, 1)->wait_for(kReadyLimit);
    } catch (const mqtt::exception& error) {
        fail(std::string("subscribe: ") + error.what());
    }
    std::ofstream(argv[3]) << "subscribed\n";
    for (std::string line; std::getline(std::cin, line);) {
        if (line == "release") offers.release();
    }
    // Stdin closed: the batcher's destructor sends what is queued.
    try {
        (*client)->disconnect()->wait_for(std::chrono::seconds(2));
    } catch (const mqtt::exception&) {
        // Going away either way.
    }
    return 0;
}

ReceiptResponder::ReceiptResponder(const std::string& broker_uri, const std::string& dir,
                                   bool hold) {
    const std::string ready = dir + "/responder.ready";
    ::unlink(ready.c_str());
    int pipe_fds[2];
    // Close-on-exec: a later child must not hold this responder's stdin open.
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) fail("pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[0], 0);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
    std::vector<std::string> args = {"/proc/self/exe", kResponderRole, broker_uri, ready,
                                     hold ? "hold" : "live"};
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    const int rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[0]);
    if (rc != 0) fail("cannot start the responder");
    stdin_ = ::fdopen(pipe_fds[1], "w");
    const auto deadline = std::chrono::steady_clock::now() + kReadyLimit;
    while (::access(ready.c_str(), F_OK) != 0) {
        if (std::chrono::steady_clock::now() > deadline) fail("not subscribed in time");
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

ReceiptResponder::~ReceiptResponder() {
    if (stdin_ != nullptr) std::fclose(stdin_);
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
}

void ReceiptResponder::release() {
    std::fputs("release\n", stdin_);
    std::fflush(stdin_);
}

}  // namespace outpost::bench
