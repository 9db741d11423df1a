// The MQTT stream scanner of the stamping relay: alarm PUBLISH packets are
// found however TCP splits the stream, in MQTT 5 and 3.1.1.
#include "proof/vm/publish_scanner.h"

#include <catch2/catch.hpp>
#include <string>

#include "mqtt_bytes.h"

using outpost::torture::vm::PublishScanner;

using namespace outpost::testing::mqtt_bytes;

namespace {

std::vector<std::string> feed_bytewise(PublishScanner& scanner, const std::string& stream) {
    std::vector<std::string> ids;
    for (char c : stream) {
        const auto byte = static_cast<uint8_t>(c);
        for (const std::string& id : scanner.feed(&byte, 1)) ids.push_back(id);
    }
    return ids;
}

}  // namespace

TEST_CASE("alarm publishes are found however the stream is split (MQTT 5)") {
    const std::string payload(300, ' ');  // a remaining length over 127: two varint bytes
    const std::string stream =
        connect(5) +
        publish("outpost/gw/alarm/dev-1", R"({"eventId":"e-1","seq":1})" + payload, 5) +
        publish("outpost/gw/status", R"({"eventId":"not-an-alarm"})", 5) +
        publish("outpost/gw/alarm/dev-2", R"({"eventId":"e-2"})", 5);
    SECTION("in one piece") {
        PublishScanner scanner;
        const auto* data = reinterpret_cast<const uint8_t*>(stream.data());
        CHECK(scanner.feed(data, stream.size()) == std::vector<std::string>{"e-1", "e-2"});
        CHECK_FALSE(scanner.failed());
    }
    SECTION("a byte at a time") {
        PublishScanner scanner;
        CHECK(feed_bytewise(scanner, stream) == std::vector<std::string>{"e-1", "e-2"});
    }
}

TEST_CASE("MQTT 3.1.1 publishes carry no properties block") {
    PublishScanner scanner;
    const std::string stream =
        connect(4) + publish("outpost/gw/alarm/dev-1", R"({"eventId":"e-9"})", 4);
    CHECK(feed_bytewise(scanner, stream) == std::vector<std::string>{"e-9"});
}

TEST_CASE("a stream that is not MQTT is reported, not misread") {
    PublishScanner scanner;
    const std::string garbage = std::string(1, '\x30') + std::string(5, '\xFF');
    CHECK(scanner.feed(reinterpret_cast<const uint8_t*>(garbage.data()), garbage.size()).empty());
    CHECK(scanner.failed());
}
