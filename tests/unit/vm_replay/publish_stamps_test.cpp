// The relay between the guest's publisher and the broker: it passes every
// byte both ways unchanged, and stamps each alarm PUBLISH with the block
// log's length when the PUBLISH arrived (the first time, for a repeat).
// Against a scripted broker on loopback that speaks no MQTT itself: the
// relay only reads the client's stream.
#include "proof/vm/publish_stamps.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <mutex>
#include <thread>

#include "mqtt_bytes.h"
#include "temp_dir.h"

using namespace outpost::testing::mqtt_bytes;
using outpost::testing::TempDir;
using outpost::torture::vm::PublishStamps;

namespace {

int tcp_socket() {
    return ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

sockaddr_in loopback(int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

// Accepts one connection, keeps what it receives, sends what it is given.
class ScriptedBroker final {
  public:
    ScriptedBroker() {
        listener_ = tcp_socket();
        sockaddr_in address = loopback(0);
        socklen_t size = sizeof address;
        REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        REQUIRE(::listen(listener_, 1) == 0);
        REQUIRE(::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) == 0);
        port_ = ntohs(address.sin_port);
        thread_ = std::thread([this] {
            connection_ = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
            if (connection_ < 0) return;
            char buffer[4096];
            for (;;) {
                const ssize_t got = ::recv(connection_, buffer, sizeof buffer, 0);
                if (got <= 0) return;
                std::lock_guard<std::mutex> lock(mutex_);
                received_.append(buffer, static_cast<size_t>(got));
            }
        });
    }
    ~ScriptedBroker() {
        ::shutdown(listener_, SHUT_RDWR);  // wakes accept() if nobody came
        if (connection_ >= 0) ::shutdown(connection_, SHUT_RDWR);
        thread_.join();
        ::close(connection_);
        ::close(listener_);
    }
    int port() const { return port_; }
    std::string received() {
        std::lock_guard<std::mutex> lock(mutex_);
        return received_;
    }
    void send(const std::string& bytes) {
        REQUIRE(::send(connection_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
                static_cast<ssize_t>(bytes.size()));
    }

  private:
    int listener_ = -1;
    std::atomic<int> connection_{-1};
    int port_ = 0;
    std::thread thread_;
    std::mutex mutex_;
    std::string received_;
};

bool wait_for(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
}

void grow(const std::string& path, size_t bytes) {
    std::ofstream(path, std::ios::binary | std::ios::app) << std::string(bytes, 'x');
}

}  // namespace

TEST_CASE("the relay passes bytes both ways and stamps alarm publishes with the log length") {
    TempDir dir;
    const std::string log = dir.path() + "/disk.log";
    grow(log, 1000);
    ScriptedBroker broker;
    std::string error;
    auto relay = PublishStamps::start(broker.port(), log, &error);
    INFO(error);
    REQUIRE(relay);

    const int client = tcp_socket();
    sockaddr_in address = loopback(relay->port());
    REQUIRE(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    std::string sent = connect(5) + publish("outpost/gw/alarm/d", R"({"eventId":"e-1"})", 5);
    REQUIRE(::send(client, sent.data(), sent.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(sent.size()));
    REQUIRE(wait_for([&] { return broker.received() == sent; }));
    CHECK(relay->stamps() == std::map<std::string, uint64_t>{{"e-1", 1000}});

    grow(log, 500);  // QEMU appended to the log meanwhile
    const std::string more = publish("outpost/gw/alarm/d", R"({"eventId":"e-2"})", 5) +
                             publish("outpost/gw/alarm/d", R"({"eventId":"e-1"})", 5) +
                             publish("outpost/gw/status", R"({"eventId":"x"})", 5);
    REQUIRE(::send(client, more.data(), more.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(more.size()));
    REQUIRE(wait_for([&] { return broker.received() == sent + more; }));
    // A repeat keeps its first stamp; only alarm topics are stamped.
    CHECK(relay->stamps() == std::map<std::string, uint64_t>{{"e-1", 1000}, {"e-2", 1500}});

    const std::string answer = "\x40\x02\x00\x07";  // the broker's side, e.g. a PUBACK
    broker.send(answer);
    std::string back(answer.size(), '\0');
    pollfd ready{client, POLLIN, 0};
    REQUIRE(::poll(&ready, 1, 10000) == 1);
    REQUIRE(::recv(client, back.data(), back.size(), MSG_WAITALL) ==
            static_cast<ssize_t>(back.size()));
    CHECK(back == answer);
    CHECK(relay->unreadable_streams() == 0);
    ::close(client);
}
