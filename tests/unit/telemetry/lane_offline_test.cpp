// The telemetry lane with no broker listening: what offer() accepts, refuses
// and drops, how every message is counted, and the datagram socket's rules.
// No service runs; the broker address is a loopback port nobody listens on.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "mosquitto_fixture.h"
#include "outpost/telemetry.h"
#include "temp_dir.h"
#include "unix_datagram.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

TelemetryOptions offline_options() {
    TelemetryOptions options;
    options.gateway_id = "gw-unit";
    options.endpoint.uri = "tcp://127.0.0.1:" + std::to_string(free_loopback_port());
    options.endpoint.reconnect_initial = std::chrono::milliseconds(50);
    options.endpoint.reconnect_max = std::chrono::milliseconds(200);
    return options;
}

std::unique_ptr<TelemetryLane> start_lane(const TelemetryOptions& options) {
    auto lane = TelemetryLane::start(options);
    INFO(lane.status().to_string());
    REQUIRE(lane);
    return std::move(*lane);
}

// Every offered message is in exactly one place.
uint64_t accounted(const TelemetryStats& stats) {
    return stats.published + stats.coalesced + stats.dropped_ring_full + stats.dropped_oversize +
           stats.dropped_invalid + stats.dropped_disconnected + stats.ring_depth;
}

// Waits (bounded, generously) for the socket thread to have seen `count`.
void wait_for_datagrams(const TelemetryLane& lane, uint64_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (lane.stats().datagrams < count && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    REQUIRE(lane.stats().datagrams == count);
}

// A bound AF_UNIX datagram socket at `path`, closed on destruction.
struct BoundSocket {
    explicit BoundSocket(const std::string& path) {
        fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
        bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    }
    ~BoundSocket() { ::close(fd); }
    int fd = -1;
    bool bound = false;
};

}  // namespace

TEST_CASE("with no broker, offers return at once and the ring keeps the newest messages") {
    TelemetryOptions options = offline_options();
    options.ring_capacity = 4;
    auto lane = start_lane(options);
    for (int i = 0; i < 10; ++i) CHECK(lane->offer("temp", std::to_string(i)));
    TelemetryStats stats = lane->stats();
    CHECK(stats.offered == 10);
    CHECK(stats.dropped_ring_full == 6);
    CHECK(stats.ring_depth == 4);
    CHECK(stats.published == 0);
    CHECK_FALSE(stats.connected);
    CHECK(accounted(stats) == stats.offered);
}

TEST_CASE("stop counts what is still in the ring as dropped and refuses later offers") {
    auto lane = start_lane(offline_options());
    lane->offer("a", "1");
    lane->offer("b", "2");
    lane->stop();
    lane->stop();  // idempotent
    CHECK_FALSE(lane->offer("c", "3"));
    TelemetryStats stats = lane->stats();
    CHECK(stats.ring_depth == 0);
    CHECK(stats.dropped_disconnected == 3);
    CHECK(accounted(stats) == stats.offered);
}

TEST_CASE("offers with a bad key or an oversize payload are refused and counted") {
    TelemetryOptions options = offline_options();
    options.max_payload_bytes = 8;
    auto lane = start_lane(options);
    CHECK_FALSE(lane->offer("a/+", "1"));
    CHECK_FALSE(lane->offer("", "1"));
    CHECK_FALSE(lane->offer("temp", "123456789"));
    CHECK(lane->offer("temp", "12345678"));
    CHECK(lane->offer("temp", ""));
    TelemetryStats stats = lane->stats();
    CHECK(stats.dropped_invalid == 2);
    CHECK(stats.dropped_oversize == 1);
    CHECK(stats.ring_depth == 2);
    CHECK(accounted(stats) == stats.offered);
}

TEST_CASE("with coalescing on, a waiting key's older values are counted as coalesced") {
    TelemetryOptions options = offline_options();
    options.coalesce = true;
    auto lane = start_lane(options);
    for (int i = 0; i < 5; ++i) lane->offer("temp", std::to_string(i));
    lane->offer("rpm", "900");
    TelemetryStats stats = lane->stats();
    CHECK(stats.coalesced == 4);
    CHECK(stats.ring_depth == 2);
    CHECK(accounted(stats) == stats.offered);
}

TEST_CASE("offers from many threads are all accounted for") {
    TelemetryOptions options = offline_options();
    options.ring_capacity = 100;
    auto lane = start_lane(options);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&lane, t] {
            for (int i = 0; i < 1000; ++i) lane->offer("k" + std::to_string(t), "v");
        });
    }
    for (auto& thread : threads) thread.join();
    TelemetryStats stats = lane->stats();
    CHECK(stats.offered == 4000);
    CHECK(stats.ring_depth == 100);
    CHECK(stats.dropped_ring_full == 3900);
}

TEST_CASE("bad options are refused with a clear error and nothing starts") {
    TelemetryOptions options = offline_options();
    options.gateway_id = "";
    auto lane = TelemetryLane::start(options);
    REQUIRE_FALSE(lane);
    CHECK(lane.status().code() == StatusCode::kInvalidArgument);
    CHECK(lane.status().message().find("gateway_id") != std::string::npos);

    options = offline_options();
    options.endpoint.uri = "http://127.0.0.1:1883";
    CHECK(TelemetryLane::start(options).status().code() == StatusCode::kInvalidArgument);
    options = offline_options();
    options.max_payload_bytes = 0;
    CHECK(TelemetryLane::start(options).status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("datagrams become messages; malformed and oversize ones are counted") {
    TempDir dir;
    TelemetryOptions options = offline_options();
    options.max_payload_bytes = 16;
    options.datagram_socket = dir.file("telemetry.sock");
    auto lane = start_lane(options);
    REQUIRE(send_datagram(options.datagram_socket, "boiler/temp\n71.5"));
    REQUIRE(send_datagram(options.datagram_socket, "empty\n"));
    REQUIRE(send_datagram(options.datagram_socket, "no newline here"));
    REQUIRE(send_datagram(options.datagram_socket, "bad/+/key\n1"));
    REQUIRE(send_datagram(options.datagram_socket, "big\n" + std::string(17, 'x')));
    REQUIRE(send_datagram(options.datagram_socket, std::string(100000, 'y')));  // truncated
    REQUIRE(send_datagram(options.datagram_socket, ""));
    wait_for_datagrams(*lane, 7);
    TelemetryStats stats = lane->stats();
    CHECK(stats.offered == 7);
    CHECK(stats.ring_depth == 2);
    CHECK(stats.dropped_invalid == 3);
    CHECK(stats.dropped_oversize == 2);
    CHECK(accounted(stats) == stats.offered);
}

TEST_CASE("the datagram socket is created with mode 0660 and removed by stop") {
    TempDir dir;
    TelemetryOptions options = offline_options();
    options.datagram_socket = dir.file("telemetry.sock");
    ::umask(0);
    auto lane = start_lane(options);
    struct stat info {};
    REQUIRE(::stat(options.datagram_socket.c_str(), &info) == 0);
    CHECK(S_ISSOCK(info.st_mode));
    CHECK((info.st_mode & 0777) == 0660);
    lane->stop();
    CHECK(::access(options.datagram_socket.c_str(), F_OK) != 0);
    ::umask(022);
}

TEST_CASE("a socket file left by a dead process is replaced") {
    TempDir dir;
    TelemetryOptions options = offline_options();
    options.datagram_socket = dir.file("telemetry.sock");
    {
        BoundSocket dead(options.datagram_socket);
        REQUIRE(dead.bound);
    }  // file stays
    REQUIRE(::access(options.datagram_socket.c_str(), F_OK) == 0);
    auto lane = start_lane(options);
    REQUIRE(send_datagram(options.datagram_socket, "k\nv"));
    wait_for_datagrams(*lane, 1);
}

TEST_CASE("a socket path served by a live process is refused as busy") {
    TempDir dir;
    TelemetryOptions options = offline_options();
    options.datagram_socket = dir.file("telemetry.sock");
    BoundSocket live(options.datagram_socket);
    REQUIRE(live.bound);
    auto lane = TelemetryLane::start(options);
    REQUIRE_FALSE(lane);
    CHECK(lane.status().code() == StatusCode::kBusy);
}

TEST_CASE("a socket path holding another kind of file is refused and left alone") {
    TempDir dir;
    TelemetryOptions options = offline_options();
    options.datagram_socket = dir.file("not-a-socket");
    std::ofstream(options.datagram_socket) << "keep me";
    auto lane = TelemetryLane::start(options);
    REQUIRE_FALSE(lane);
    CHECK(lane.status().code() == StatusCode::kInvalidArgument);
    CHECK(read_file(options.datagram_socket) == "keep me");
}
