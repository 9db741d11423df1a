// The shipped ACL and limits: a gateway writes only its own alarm, event,
// telemetry and status topics and reads only its own receipts; the bridge
// reads alarms and events and writes receipts; identities that would bend
// an ACL pattern, anonymous clients, revoked certificates and oversized
// publishes gain nothing.
#include <catch2/catch.hpp>

#include <string>

#include "broker_client.h"
#include "eventually.h"

using namespace outpost::testing;

namespace {

constexpr int kNotAuthorized = 0x87;

// The bridge's live session, subscribed to alarms and events.
struct Listening {
    explicit Listening(const ShippedBroker& broker) : bridge(broker, bridge_login(kBridgeUser)) {
        REQUIRE(bridge.connect() == 0);
        REQUIRE(bridge.subscribe(kBridgeAlarms) == 1);
        REQUIRE(bridge.subscribe(kBridgeEvents) == 1);
    }
    BrokerClient bridge;
};

}  // namespace

TEST_CASE("a gateway writes its own topics and none under another gateway's prefix") {
    ShippedBroker broker;
    const CertFiles gw1 = broker.gateway_certificate("gw-1");
    const CertFiles gw2 = broker.gateway_certificate("gw-2");
    broker.start();
    Listening listening(broker);
    BrokerClient gateway(broker, gateway_login(gw1, "outpost-gw-1"));
    REQUIRE(gateway.connect() == 0);

    CHECK(gateway.publish("outpost/gw-1/alarm/pump", "{}") == 0);
    CHECK(gateway.publish("outpost/gw-1/event/pump", "{}") == 0);
    CHECK(gateway.publish("outpost/gw-1/telemetry/pump/temperature", "{}") == 0);
    CHECK(gateway.publish("outpost/gw-1/status", "{}") == 0);
    for (const char* topic :
         {"outpost/gw-2/alarm/pump", "outpost/gw-2/event/pump", "outpost/gw-2/telemetry/t",
          "outpost/gw-2/status", "outpost/gw-1/receipt", "outpost/gw-1/other"}) {
        INFO(topic);
        CHECK(gateway.publish(topic, "{}") == kNotAuthorized);
    }
    // A gateway reads nothing but its receipts: mosquitto 2.0 grants every
    // SUBSCRIBE and checks reads when it delivers, so gw-1 subscribes to
    // everything and gets nothing of gw-2's.
    REQUIRE(gateway.subscribe("#") == 1);
    BrokerClient other(broker, gateway_login(gw2, "outpost-gw-2"));
    REQUIRE(other.connect() == 0);
    REQUIRE(other.publish("outpost/gw-2/alarm/pump", "{}") == 0);

    REQUIRE(eventually([&] { return listening.bridge.received().size() >= 3; }));
    const std::vector<std::string> expected = {"outpost/gw-1/alarm/pump", "outpost/gw-1/event/pump",
                                               "outpost/gw-2/alarm/pump"};
    CHECK(listening.bridge.received() == expected);
    CHECK(gateway.received().empty());
}

TEST_CASE("a gateway reads only its own receipts, writes none, and the bridge writes them all") {
    ShippedBroker broker;
    const CertFiles gw1 = broker.gateway_certificate("gw-1");
    const CertFiles gw2 = broker.gateway_certificate("gw-2");
    broker.start();
    BrokerClient owner(broker, gateway_login(gw1, "outpost-gw-1"));
    BrokerClient neighbour(broker, gateway_login(gw2, "outpost-gw-2"));
    REQUIRE(owner.connect() == 0);
    REQUIRE(neighbour.connect() == 0);
    CHECK(owner.subscribe("outpost/gw-1/receipt") == 1);
    // Granted (mosquitto 2.0 checks reads when it delivers), never delivered.
    CHECK(neighbour.subscribe("outpost/gw-1/receipt") == 1);
    CHECK(neighbour.publish("outpost/gw-1/receipt", R"({"v":1,"eventIds":["x"]})") ==
          kNotAuthorized);

    ClientLogin sender = bridge_login(std::string(kBridgeUser) + "-receipts");
    sender.clean_start = true;
    sender.session_expiry_s = 0;
    BrokerClient receipts(broker, sender);
    REQUIRE(receipts.connect() == 0);
    CHECK(receipts.publish("outpost/gw-1/receipt", R"({"v":1,"eventIds":["a"]})") == 0);
    // The bridge writes receipts, not alarms: it cannot pose as a gateway.
    CHECK(receipts.publish("outpost/gw-1/alarm/pump", "{}") == kNotAuthorized);

    REQUIRE(eventually([&] { return owner.received().size() >= 1; }));
    CHECK(owner.received() == std::vector<std::string>{"outpost/gw-1/receipt"});
    // The neighbour's own receipt comes after gw-1's on the same sender, so
    // once it arrived gw-1's would have too.
    CHECK(neighbour.subscribe("outpost/gw-2/receipt") == 1);
    CHECK(receipts.publish("outpost/gw-2/receipt", R"({"v":1,"eventIds":["b"]})") == 0);
    REQUIRE(eventually([&] { return neighbour.received().size() >= 1; }));
    CHECK(neighbour.received() == std::vector<std::string>{"outpost/gw-2/receipt"});
}

TEST_CASE("a certificate CN with '/', '+' or '#' gains nothing") {
    ShippedBroker broker;
    const std::vector<std::string> names = {"gw-1/alarm", "gw-1+", "#", "+", "gw-1/#"};
    std::vector<CertFiles> certificates;
    for (const std::string& name : names) certificates.push_back(broker.gateway_certificate(name));
    broker.start();
    Listening listening(broker);
    for (size_t i = 0; i < names.size(); ++i) {
        // Under the old pattern "outpost/%u/#", CN "gw-1/alarm" wrote into
        // gw-1's alarms; here the CONNECT is refused, whatever id it uses.
        for (const std::string& id : {"outpost-" + names[i], std::string("outpost-gw-1")}) {
            BrokerClient odd(broker, gateway_login(certificates[i], id));
            INFO("CN " << names[i] << ", client id " << id);
            CHECK(odd.connect() == kNotAuthorized);
            CHECK(odd.publish("outpost/gw-1/alarm/pump", "{}") != 0);
        }
    }
    CHECK(listening.bridge.received().empty());
}

TEST_CASE("anonymous clients, wrong passwords and revoked certificates are refused") {
    ShippedBroker broker;
    const CertFiles gw1 = broker.gateway_certificate("gw-1");
    const CertFiles revoked = broker.gateway_certificate("gw-revoked");
    broker.start({revoked});

    ClientLogin anonymous;
    anonymous.client_id = "anyone";
    BrokerClient on_bridge_listener(broker, anonymous);
    CHECK(on_bridge_listener.connect() == kNotAuthorized);
    BrokerClient wrong_password(broker, bridge_login(kBridgeUser, "guessed"));
    CHECK(wrong_password.connect() != 0);
    CHECK_FALSE(wrong_password.connected());
    // The gateway listener wants a certificate from the gateway CA; a
    // password is not enough.
    ClientLogin password_on_gateway_listener = bridge_login(kBridgeUser);
    BrokerClient no_certificate(broker, password_on_gateway_listener);
    CHECK(no_certificate.connect() == 0);  // on the bridge listener: fine
    BrokerClient revoked_gateway(broker, gateway_login(revoked, "outpost-gw-revoked"));
    CHECK(revoked_gateway.connect() != 0);
    CHECK_FALSE(revoked_gateway.connected());
    BrokerClient valid_gateway(broker, gateway_login(gw1, "outpost-gw-1"));
    INFO("broker log: " << tail_of(broker.log(), 30));
    CHECK(valid_gateway.connect() == 0);
}

TEST_CASE("a publish larger than the broker's packet limit is not delivered") {
    ShippedBroker broker;
    const CertFiles gw1 = broker.gateway_certificate("gw-1");
    broker.start();
    Listening listening(broker);
    BrokerClient gateway(broker, gateway_login(gw1, "outpost-gw-1"));
    REQUIRE(gateway.connect() == 0);
    // The limit is announced (Maximum Packet Size in the CONNACK) ...
    CHECK(gateway.maximum_packet_size() == 266240);
    // ... and enforced by the broker itself (paho sends the packet anyway):
    // the publish fails and the broker closes that connection.
    CHECK(gateway.publish("outpost/gw-1/alarm/big", std::string(300 * 1024, 'x')) != 0);
    CHECK(eventually([&] {
        return broker.log().find("outpost-gw-1 disconnected due to oversize packet") !=
               std::string::npos;
    }));

    BrokerClient again(broker, gateway_login(gw1, "outpost-gw-1"));
    REQUIRE(again.connect() == 0);
    REQUIRE(again.publish("outpost/gw-1/alarm/small", std::string(200 * 1024, 'x')) == 0);
    REQUIRE(eventually([&] { return !listening.bridge.received().empty(); }));
    CHECK(listening.bridge.received() == std::vector<std::string>{"outpost/gw-1/alarm/small"});
}
