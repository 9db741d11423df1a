// A connect that times out because paho's one receive thread per process is
// held in a callback (the bridge's sessions hold it while RocketMQ is down)
// stays queued inside paho and may still connect later
// (paho/client_setup.h, PendingConnect). Against a real mosquitto, with a
// second client of this process holding the receive thread in its message
// callback:
//  - paho::connect starts no second attempt while that one is in progress
//    (paho C 1.3.12 would call into a freed token when it lands);
//  - paho::connect refuses at once a client that is already connected
//    (paho C 1.3.12 ignores such a CONNECT and never answers it);
//  - the bridge's receipt sender sends again after such a timeout, using
//    the attempt if it landed (before, it asked for another CONNECT, which
//    paho never answered, and no receipt of that bridge went out again).
#include <signal.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "bridge/mqtt/receipt_sender.h"
#include "eventually.h"
#include "mosquitto_fixture.h"
#include "paho/client_setup.h"

namespace outpost {
namespace {

using namespace std::chrono_literals;

// paho's receive thread notices a new socket only at its next select(), up
// to a second away while another client is connected: only then does the
// CONNECT go out, so 1 s can time out a connect that never sent it. The
// clients whose connect is made to time out wait 3 s (paho::connect gives
// up after 3 + 2 s), long enough for their CONNECT to reach the broker
// before the hold; the others 5 s.
paho::ConnectSettings settings_for(const testing::Mosquitto& broker, const std::string& id,
                                   std::chrono::seconds connect_timeout = 3s) {
    paho::ConnectSettings settings;
    settings.endpoint.uri = broker.uri();
    settings.endpoint.client_id = id;
    settings.endpoint.connect_timeout = connect_timeout;
    return settings;
}

// Holds paho's receive thread inside a message callback from hold() until
// release() (or its destruction).
class ReceiveThreadHolder final {
  public:
    explicit ReceiveThreadHolder(const testing::Mosquitto& broker)
        : settings_(settings_for(broker, "holder", 5s)) {
        auto client = paho::make_client(settings_, "holder");
        REQUIRE(client.is_ok());
        client_ = std::move(*client);
        client_->set_message_callback([this](mqtt::const_message_ptr) {
            std::unique_lock<std::mutex> lock(mutex_);
            inside_ = true;
            changed_.notify_all();
            changed_.wait(lock, [&] { return released_; });
        });
        paho::PendingConnect pending;
        auto connected = paho::connect(*client_, settings_, "holder connect", pending);
        INFO(connected.status().to_string());
        REQUIRE(connected.is_ok());
        REQUIRE(client_->subscribe("hold", 0)->wait_for(5s));
    }
    ~ReceiveThreadHolder() {
        release();
        client_->disconnect()->wait_for(5s);
    }

    void hold() {
        client_->publish("hold", "x", 1, 0, false);
        std::unique_lock<std::mutex> lock(mutex_);
        REQUIRE(changed_.wait_for(lock, 10s, [&] { return inside_; }));
    }
    void release() {
        std::lock_guard<std::mutex> lock(mutex_);
        released_ = true;
        changed_.notify_all();
    }

  private:
    const paho::ConnectSettings settings_;
    std::unique_ptr<mqtt::async_client> client_;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool inside_ = false;    // guarded by mutex_
    bool released_ = false;  // guarded by mutex_
};

// Stops `broker` (SIGSTOP) until resume() or destruction: a TCP connect
// still completes (the kernel's backlog) but no CONNACK comes.
class FrozenBroker final {
  public:
    explicit FrozenBroker(const testing::Mosquitto& broker) : pid_(broker.pid()) {
        ::kill(pid_, SIGSTOP);
    }
    ~FrozenBroker() { resume(); }
    void resume() {
        if (pid_ > 0) ::kill(pid_, SIGCONT);
        pid_ = -1;
    }

  private:
    pid_t pid_;
};

// The loopback TCP connections to `port` (/proc/net/tcp, established): the
// client's port -> the bytes that arrived and the listener has not read yet
// (rx_queue). A frozen broker reads nothing, so a CONNECT stays counted.
std::map<int, long> connections_to(int port) {
    std::ifstream table("/proc/net/tcp");
    std::string line;
    std::getline(table, line);  // the header
    std::map<int, long> unread;
    while (std::getline(table, line)) {
        std::istringstream fields(line);
        std::string slot, local, remote, state, queues;
        fields >> slot >> local >> remote >> state >> queues;
        const std::size_t local_colon = local.find(':');
        const std::size_t remote_colon = remote.find(':');
        const std::size_t queue_colon = queues.find(':');
        if (local_colon == std::string::npos || remote_colon == std::string::npos ||
            queue_colon == std::string::npos || state != "01" ||
            std::stoi(local.substr(local_colon + 1), nullptr, 16) != port) {
            continue;
        }
        unread[std::stoi(remote.substr(remote_colon + 1), nullptr, 16)] =
            std::stol(queues.substr(queue_colon + 1), nullptr, 16);
    }
    return unread;
}

// Whether some connection to `port` carries more unread bytes than in
// `before` (a new connection counts from none): a client sent something the
// frozen listener has not read.
bool unread_bytes_grew(int port, const std::map<int, long>& before) {
    for (const auto& [client_port, unread] : connections_to(port)) {
        const auto earlier = before.find(client_port);
        if (unread > (earlier == before.end() ? 0 : earlier->second)) return true;
    }
    return false;
}

// Starts `connect` on its own thread while `broker` is frozen, then holds
// paho's receive thread (through `holder`, on another broker) and thaws the
// broker: its CONNACK waits unread, and `connect` times out (paho's own
// timeout check needs the mutex the held callback keeps). The order
// matters: paho's connect() itself waits for that mutex, so the attempt
// must be queued before the hold begins: the hold starts once what the
// client sent (its CONNECT) waits unread in the frozen broker's socket.
template <typename Connect>
auto time_out_behind_a_held_receive_thread(const testing::Mosquitto& broker,
                                           ReceiveThreadHolder& holder, Connect connect) {
    FrozenBroker frozen(broker);
    const std::map<int, long> before = connections_to(broker.port());
    auto result = std::async(std::launch::async, connect);
    REQUIRE(testing::eventually([&] { return unread_bytes_grew(broker.port(), before); }, 10s));
    holder.hold();
    frozen.resume();
    return result.get();
}

}  // namespace

TEST_CASE("a connect that timed out behind a held receive thread is not started twice") {
    testing::Mosquitto broker;
    testing::Mosquitto holder_broker;
    ReceiveThreadHolder holder(holder_broker);
    const paho::ConnectSettings settings = settings_for(broker, "late-client");
    auto client = paho::make_client(settings, "late client");
    REQUIRE(client.is_ok());
    paho::PendingConnect pending;

    auto first = time_out_behind_a_held_receive_thread(
        broker, holder, [&] { return paho::connect(**client, settings, "connect", pending); });
    REQUIRE_FALSE(first.is_ok());
    CHECK(first.status().code() == StatusCode::kTimeout);
    CHECK(pending.in_progress());

    // Still held: no second attempt reaches paho (and nothing blocks).
    auto second = paho::connect(**client, settings, "connect", pending);
    REQUIRE_FALSE(second.is_ok());
    CHECK(second.status().code() == StatusCode::kUnavailable);
    CHECK(second.status().message().find("still in progress") != std::string::npos);

    // Freed, paho finishes the first attempt, connected or timed out
    // (whichever of CONNACK and its timeout check it reaches first).
    holder.release();
    REQUIRE(testing::eventually([&] { return !pending.in_progress(); }, 15s));
    const bool landed = pending.finished_connected();
    CHECK(landed == (*client)->is_connected());
    if (landed) (*client)->disconnect()->wait_for(5s);
}

TEST_CASE("a connect on a client that is already connected is refused at once, leaving nothing pending") {
    testing::Mosquitto broker;
    const paho::ConnectSettings settings = settings_for(broker, "twice");
    auto client = paho::make_client(settings, "twice");
    REQUIRE(client.is_ok());
    paho::PendingConnect pending;
    REQUIRE(paho::connect(**client, settings, "connect", pending).is_ok());

    // paho C 1.3.12 drops a CONNECT for a connected client without ever
    // answering it: started, it would time out and stay "in progress" for
    // good, refusing every later connect of this client.
    // Refused, not timed out: an attempt would end in kTimeout, not this.
    auto again = paho::connect(**client, settings, "connect", pending);
    REQUIRE_FALSE(again.is_ok());
    CHECK(again.status().code() == StatusCode::kUnavailable);
    CHECK(again.status().message().find("already connected") != std::string::npos);
    CHECK_FALSE(pending.in_progress());
    CHECK((*client)->is_connected());
    (*client)->disconnect()->wait_for(5s);
}

TEST_CASE("the bridge's receipt sender sends again after a connect that timed out behind a held receive thread") {
    testing::Mosquitto broker;
    // Receipts arrive where a gateway would read them.
    const paho::ConnectSettings reader_settings = settings_for(broker, "gateway", 5s);
    auto reader = paho::make_client(reader_settings, "gateway");
    REQUIRE(reader.is_ok());
    std::atomic<int> receipts{0};
    (*reader)->set_message_callback([&](mqtt::const_message_ptr) { receipts++; });
    paho::PendingConnect reader_pending;
    REQUIRE(paho::connect(**reader, reader_settings, "gateway connect", reader_pending).is_ok());
    REQUIRE((*reader)->subscribe("outpost/gw-1/receipt", 1)->wait_for(5s));

    bridge::MqttConfig config;
    config.endpoint.uri = broker.uri();
    config.endpoint.client_id = "bridge-late";
    config.endpoint.connect_timeout = 3s;  // as settings_for's, for the same reason
    config.endpoint.reconnect_initial = 10ms;
    config.endpoint.reconnect_max = 20ms;
    auto sender = bridge::make_receipt_sender(config);
    REQUIRE(sender.is_ok());
    const std::string topic = "outpost/gw-1/receipt";
    const std::string payload = R"({"v":1,"eventIds":["e-1"]})";

    // Whether a held attempt lands (CONNACK read first) or fails (paho's
    // timeout check first) is a race inside paho; four rounds see both
    // outcomes in most runs. Each round must end with a receipt delivered.
    for (int round = 1; round <= 4; ++round) {
        INFO("round " << round);
        {
            testing::Mosquitto holder_broker;
            ReceiveThreadHolder holder(holder_broker);
            Status timed_out = time_out_behind_a_held_receive_thread(
                broker, holder, [&] { return (*sender)->send(topic, payload); });
            CHECK_FALSE(timed_out.is_ok());
            // Still held: the attempt is in progress, and no second one starts.
            CHECK_FALSE((*sender)->send(topic, payload).is_ok());
            holder.release();
        }
        // The attempt lands or fails; either way the sender sends again.
        // (When it landed, the sender used to ask paho for another CONNECT,
        // which paho never answers for a connected client; every later
        // send() was then refused as "still in progress".)
        REQUIRE(testing::eventually([&] { return (*sender)->send(topic, payload).is_ok(); }, 20s));
        CHECK(testing::eventually([&] { return receipts.load() >= round; }, 10s));
        CHECK(testing::eventually([&] { return (*sender)->acks().acked >= 1; }, 10s));
        // The next round starts from a lost connection, as after an outage.
        (*sender).reset();
        sender = bridge::make_receipt_sender(config);
        REQUIRE(sender.is_ok());
    }
    (*reader)->disconnect()->wait_for(5s);
}

}  // namespace outpost
