// The telemetry lane against a real mosquitto, checked by an independent
// subscriber (mosquitto_sub): topics, QoS 0, exact payloads, a broker
// outage with drops counted and a resume, and the datagram socket.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "mosquitto_fixture.h"
#include "outpost/telemetry.h"
#include "telemetry_subscriber.h"
#include "temp_dir.h"
#include "unix_datagram.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

TelemetryOptions lane_options(const Mosquitto& broker) {
    TelemetryOptions options;
    options.gateway_id = "gw-tele";
    options.endpoint.uri = broker.uri();
    options.endpoint.reconnect_initial = std::chrono::milliseconds(50);
    options.endpoint.reconnect_max = std::chrono::milliseconds(400);
    options.endpoint.connect_timeout = std::chrono::seconds(2);
    return options;
}

std::unique_ptr<TelemetryLane> start_connected(const TelemetryOptions& options) {
    auto lane = TelemetryLane::start(options);
    INFO(lane.status().to_string());
    REQUIRE(lane);
    REQUIRE(eventually([&] { return (*lane)->stats().connected; }));
    return std::move(*lane);
}

bool received_count(const TelemetrySubscriber& subscriber, size_t count) {
    return eventually([&] { return subscriber.messages().size() >= count; });
}

}  // namespace

TEST_CASE("offered telemetry arrives at QoS 0 on the gateway's telemetry topic, bytes exact") {
    Mosquitto broker;
    TelemetrySubscriber subscriber(broker, "tele-sub");
    auto lane = start_connected(lane_options(broker));
    const std::string binary("\x00\x01\n\xff 7", 6);
    REQUIRE(lane->offer("boiler/temp", "71.5"));
    REQUIRE(lane->offer("pump-3/rpm", binary));
    REQUIRE(lane->offer("door", ""));
    REQUIRE(received_count(subscriber, 3));
    const auto messages = subscriber.messages();
    REQUIRE(messages.size() == 3);
    CHECK(messages[0].topic == "outpost/gw-tele/telemetry/boiler/temp");
    CHECK(messages[0].payload == "71.5");
    CHECK(messages[1].topic == "outpost/gw-tele/telemetry/pump-3/rpm");
    CHECK(messages[1].payload == binary);
    CHECK(messages[2].topic == "outpost/gw-tele/telemetry/door");
    CHECK(messages[2].payload.empty());
    for (const auto& message : messages) CHECK(message.qos == 0);
    TelemetryStats stats = lane->stats();
    CHECK(stats.published == 3);
    CHECK(stats.ring_depth == 0);
}

TEST_CASE("the lane connects with its own client id, apart from the alarm publisher's") {
    Mosquitto broker;
    auto lane = start_connected(lane_options(broker));
    CHECK(broker.log().find("outpost-gw-tele-telemetry") != std::string::npos);
}

TEST_CASE(
    "with the broker down, offers are still taken, the oldest are dropped and counted, "
    "and the lane resumes after the restart") {
    Mosquitto broker;
    TelemetryOptions options = lane_options(broker);
    options.ring_capacity = 100;
    auto lane = start_connected(options);
    broker.stop();
    REQUIRE(eventually([&] { return !lane->stats().connected; }));

    int accepted = 0;
    for (int i = 0; i < 1000; ++i) accepted += lane->offer("seq", std::to_string(i)) ? 1 : 0;
    CHECK(accepted == 1000);
    TelemetryStats down = lane->stats();
    CHECK(down.offered == 1000);
    CHECK(down.ring_depth == 100);
    CHECK(down.dropped_ring_full == 900);
    CHECK_FALSE(down.last_error.empty());

    broker.start();
    REQUIRE(
        eventually([&] { return lane->stats().connected && lane->stats().reconnects >= 1; }));
    // The ring's newest 100 (900..999) go out on reconnect.
    REQUIRE(eventually([&] { return lane->stats().ring_depth == 0; }));
    TelemetrySubscriber subscriber(broker, "tele-sub-after");
    REQUIRE(lane->offer("seq", "after-restart"));
    REQUIRE(received_count(subscriber, 1));
    CHECK(subscriber.messages().back().payload == "after-restart");
    TelemetryStats up = lane->stats();
    CHECK(up.published + up.dropped_disconnected == 101);
    CHECK(up.published + up.dropped_ring_full + up.dropped_disconnected == up.offered);
}

TEST_CASE("datagrams arrive exactly; malformed ones are counted and never sent") {
    Mosquitto broker;
    TempDir dir;
    TelemetryOptions options = lane_options(broker);
    options.max_payload_bytes = 64;
    options.datagram_socket = dir.file("telemetry.sock");
    TelemetrySubscriber subscriber(broker, "tele-sub-dgram");
    auto lane = start_connected(options);
    const std::string& path = options.datagram_socket;
    REQUIRE(send_datagram(path, "no newline"));
    REQUIRE(send_datagram(path, "bad/#\n1"));
    REQUIRE(send_datagram(path, "big\n" + std::string(65, 'x')));
    REQUIRE(send_datagram(path, "boiler/temp\n71.5"));
    REQUIRE(send_datagram(path, std::string("raw\n\x00\n\xfe", 7)));
    REQUIRE(received_count(subscriber, 2));
    REQUIRE(eventually([&] { return lane->stats().datagrams == 5; }));
    const auto messages = subscriber.messages();
    REQUIRE(messages.size() == 2);
    CHECK(messages[0].topic == "outpost/gw-tele/telemetry/boiler/temp");
    CHECK(messages[0].payload == "71.5");
    CHECK(messages[1].topic == "outpost/gw-tele/telemetry/raw");
    CHECK(messages[1].payload == std::string("\x00\n\xfe", 3));
    TelemetryStats stats = lane->stats();
    CHECK(stats.dropped_invalid == 2);
    CHECK(stats.dropped_oversize == 1);
    CHECK(stats.published == 2);
}
