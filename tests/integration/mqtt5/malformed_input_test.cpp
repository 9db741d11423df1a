// Bytes a broker must never send close the connection: the error names the
// packet, the field and what is wrong, and the subscriber's DISCONNECT
// carries the matching reason code. The "broker" is a loopback script
// (fake_broker.h): no real broker sends these.
#include <catch2/catch.hpp>
#include <string>

#include "bridge/mqtt/v5/subscriber.h"
#include "fake_broker.h"

using namespace outpost;
using namespace outpost::testing;
using bridge::mqtt5::Message;
using bridge::mqtt5::Subscriber;
using bridge::mqtt5::SubscriberOptions;

namespace {

std::string bytes(std::initializer_list<int> values) {
    std::string out;
    for (int value : values) out.push_back(static_cast<char>(value));
    return out;
}

const std::string kConnackSuccess = bytes({0x20, 0x03, 0x00, 0x00, 0x00});

SubscriberOptions options_for(const FakeBroker& broker) {
    SubscriberOptions options;
    options.address = broker.address();
    options.client_id = "malformed-test";
    options.connect_timeout = std::chrono::seconds(10);
    options.topic_alias_maximum = 64;
    return options;
}

// Connects, receives until an error, and returns it.
Status error_after(const SubscriberOptions& options) {
    auto subscriber = Subscriber::connect(options);
    if (!subscriber.is_ok()) return subscriber.status();
    for (;;) {
        Result<Message> message =
            (*subscriber)->receive(std::chrono::steady_clock::now() + std::chrono::seconds(10));
        if (!message.is_ok()) return message.status();
    }
}

// The DISCONNECT with `reason` the subscriber must have sent.
std::string disconnect_with(int reason) {
    return bytes({0xE0, 0x01, reason});
}

}  // namespace

TEST_CASE("a PUBLISH topic name holding U+0000 closes the connection as a malformed packet") {
    FakeBroker broker(kConnackSuccess +
                      bytes({0x32, 0x08, 0x00, 0x02, 'a', 0x00, 0x00, 0x01, 0x00, 'x'}));
    const Status error = error_after(options_for(broker));
    INFO(error.to_string());
    CHECK(error.code() == StatusCode::kUnavailable);
    CHECK(error.message().find("malformed packet") != std::string::npos);
    CHECK(error.message().find("PUBLISH topic name: U+0000") != std::string::npos);
    CHECK(broker.received_after_connect() == disconnect_with(0x81));
}

TEST_CASE("a Remaining Length of five bytes closes the connection as a malformed packet") {
    FakeBroker broker(kConnackSuccess + bytes({0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}));
    const Status error = error_after(options_for(broker));
    INFO(error.to_string());
    CHECK(error.message().find("Remaining Length") != std::string::npos);
    CHECK(broker.received_after_connect() == disconnect_with(0x81));
}

TEST_CASE("a Remaining Length longer than its shortest form closes the connection") {
    // 0x80 0x00 is zero written in two bytes.
    FakeBroker broker(kConnackSuccess + bytes({0xD0, 0x80, 0x00}));
    const Status error = error_after(options_for(broker));
    INFO(error.to_string());
    CHECK(error.message().find("Remaining Length") != std::string::npos);
}

TEST_CASE("a CONNACK giving Receive Maximum twice is refused at connect as a protocol error") {
    FakeBroker broker(bytes({0x20, 0x09, 0x00, 0x00, 0x06, 0x21, 0x00, 0x0A, 0x21, 0x00, 0x0A}));
    auto subscriber = Subscriber::connect(options_for(broker));
    REQUIRE_FALSE(subscriber.is_ok());
    INFO(subscriber.status().to_string());
    CHECK(subscriber.status().message().find("Receive Maximum: given twice") != std::string::npos);
    CHECK(broker.received_after_connect() == disconnect_with(0x82));
}

TEST_CASE("a CONNACK refusing the password is a permission error naming the reason") {
    FakeBroker broker(bytes({0x20, 0x03, 0x00, 0x86, 0x00}));
    auto subscriber = Subscriber::connect(options_for(broker));
    REQUIRE_FALSE(subscriber.is_ok());
    INFO(subscriber.status().to_string());
    CHECK(subscriber.status().code() == StatusCode::kPermissionDenied);
    CHECK(subscriber.status().message().find("0x86 Bad User Name or Password") !=
          std::string::npos);
}

TEST_CASE("a Topic Alias above the maximum we offered closes the connection with 0x94") {
    FakeBroker broker(kConnackSuccess + bytes({0x32, 0x0A, 0x00, 0x01, 'a', 0x00, 0x01, 0x03, 0x23,
                                               0x00, 0x46, 'x'}));
    const Status error = error_after(options_for(broker));  // maximum 64, alias 70
    INFO(error.to_string());
    CHECK(error.message().find("Topic Alias 70 is outside 1..64") != std::string::npos);
    CHECK(broker.received_after_connect() == disconnect_with(0x94));
}

TEST_CASE("a topic alias set by the broker names the topic of later messages that carry only it") {
    FakeBroker broker(kConnackSuccess +
                      bytes({0x30, 0x0A, 0x00, 0x03, 'a', '/', 'b', 0x03, 0x23, 0x00, 0x01, '1'}) +
                      bytes({0x30, 0x07, 0x00, 0x00, 0x03, 0x23, 0x00, 0x01, '2'}));
    auto subscriber = Subscriber::connect(options_for(broker));
    REQUIRE(subscriber.is_ok());
    for (const char* payload : {"1", "2"}) {
        Result<Message> message =
            (*subscriber)->receive(std::chrono::steady_clock::now() + std::chrono::seconds(10));
        INFO(message.status().to_string());
        REQUIRE(message.is_ok());
        CHECK(message->topic == "a/b");
        CHECK(message->payload == payload);
    }
}

TEST_CASE(
    "more unacknowledged QoS 1 messages than our Receive Maximum close the connection with 0x93") {
    const std::string publish_1 = bytes({0x32, 0x06, 0x00, 0x01, 'a', 0x00, 0x01, 0x00});
    const std::string publish_2 = bytes({0x32, 0x06, 0x00, 0x01, 'a', 0x00, 0x02, 0x00});
    const std::string publish_3 = bytes({0x32, 0x06, 0x00, 0x01, 'a', 0x00, 0x03, 0x00});
    FakeBroker broker(kConnackSuccess + publish_1 + publish_2 + publish_3);
    SubscriberOptions options = options_for(broker);
    options.receive_maximum = 2;
    const Status error = error_after(options);
    INFO(error.to_string());
    CHECK(error.message().find("above the Receive Maximum of 2") != std::string::npos);
    CHECK(broker.received_after_connect() == disconnect_with(0x93));
}

TEST_CASE("a packet above our Maximum Packet Size closes the connection with 0x95") {
    FakeBroker broker(kConnackSuccess + bytes({0x30, 0x40, 0x00, 0x01, 'a', 0x00}) +
                      std::string(0x3C, 'x'));
    SubscriberOptions options = options_for(broker);
    options.maximum_packet_size = 32;
    const Status error = error_after(options);
    INFO(error.to_string());
    CHECK(error.message().find("above the Maximum Packet Size of 32") != std::string::npos);
    CHECK(broker.received_after_connect() == disconnect_with(0x95));
}

TEST_CASE("a DISCONNECT from the broker ends the connection with its reason named") {
    FakeBroker broker(kConnackSuccess + bytes({0xE0, 0x01, 0x8E}));
    const Status error = error_after(options_for(broker));
    INFO(error.to_string());
    CHECK(error.code() == StatusCode::kUnavailable);
    CHECK(error.message().find("0x8E Session taken over") != std::string::npos);
}
