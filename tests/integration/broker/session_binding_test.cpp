// Client ids bound to identities on the shipped broker: a session held by
// the broker for the bridge (or a gateway's live connection) cannot be taken
// with other credentials, so nothing queued for the bridge is lost.
#include <catch2/catch.hpp>

#include <string>

#include "broker_client.h"
#include "eventually.h"

using namespace outpost::testing;

TEST_CASE(
    "a gateway's credentials cannot take the bridge's session; the bridge gets every queued alarm") {
    ShippedBroker broker;
    const CertFiles gw1 = broker.gateway_certificate("gw-1");
    const CertFiles gw2 = broker.gateway_certificate("gw-2");
    broker.start();

    // The bridge's session subscribes and goes away; the broker keeps it.
    {
        BrokerClient bridge(broker, bridge_login(kBridgeUser));
        REQUIRE(bridge.connect() == 0);
        REQUIRE(bridge.subscribe(kBridgeAlarms) == 1);
        bridge.disconnect();
    }
    BrokerClient gateway(broker, gateway_login(gw1, "outpost-gw-1"));
    REQUIRE(gateway.connect() == 0);
    for (int i = 0; i < 5; ++i) {
        REQUIRE(gateway.publish("outpost/gw-1/alarm/pump-" + std::to_string(i), "{}") == 0);
    }

    // Another gateway's certificate with the bridge's ids, clean start off.
    for (const std::string& id : {std::string(kBridgeUser), std::string(kBridgeUser) + "-1",
                                  std::string(kBridgeUser) + "-receipts"}) {
        ClientLogin attacker = gateway_login(gw2, id);
        attacker.clean_start = false;
        attacker.session_expiry_s = 3600;
        BrokerClient thief(broker, attacker);
        INFO("client id " << id);
        CHECK(thief.connect() == 0x87);  // Not authorized
        CHECK(thief.received().empty());
    }
    // The bridge's id with a wrong password, or no credentials at all.
    {
        BrokerClient thief(broker, bridge_login(kBridgeUser, "guessed"));
        CHECK(thief.connect() != 0);
        ClientLogin anonymous;
        anonymous.client_id = kBridgeUser;
        anonymous.clean_start = false;
        BrokerClient nobody(broker, anonymous);
        CHECK(nobody.connect() != 0);
    }

    BrokerClient bridge(broker, bridge_login(kBridgeUser));
    REQUIRE(bridge.connect() == 0);
    CHECK(bridge.session_present());
    const bool all = eventually([&] { return bridge.received().size() >= 5; });
    INFO("broker log: " << tail_of(broker.log(), 40));
    CHECK(all);
    CHECK(bridge.received().size() == 5);
}

TEST_CASE("neither another gateway nor the bridge can take a gateway's client ids") {
    ShippedBroker broker;
    const CertFiles gw1 = broker.gateway_certificate("gw-1");
    const CertFiles gw2 = broker.gateway_certificate("gw-2");
    const CertFiles gw = broker.gateway_certificate("gw");
    broker.start();
    BrokerClient publisher(broker, gateway_login(gw1, "outpost-gw-1"));
    BrokerClient telemetry(broker, gateway_login(gw1, "outpost-gw-1-telemetry"));
    REQUIRE(publisher.connect() == 0);
    REQUIRE(telemetry.connect() == 0);

    const std::vector<std::pair<ClientLogin, std::string>> attempts = {
        {gateway_login(gw2, "outpost-gw-1"), "gw-2 as outpost-gw-1"},
        {gateway_login(gw2, "outpost-gw-1-telemetry"), "gw-2 as outpost-gw-1-telemetry"},
        // "gw" is a prefix of "gw-1": its allowance must not reach gw-1's ids.
        {gateway_login(gw, "outpost-gw-1"), "gw as outpost-gw-1"},
        {gateway_login(gw, "outpost-gw-1-telemetry"), "gw as outpost-gw-1-telemetry"},
        {bridge_login("outpost-gw-1"), "the bridge as outpost-gw-1"},
    };
    for (const auto& [login, what] : attempts) {
        BrokerClient thief(broker, login);
        INFO(what);
        CHECK(thief.connect() == 0x87);
    }
    // gw-1 was never kicked off: both its connections still work.
    CHECK(publisher.connected());
    CHECK(telemetry.connected());
    CHECK(publisher.publish("outpost/gw-1/alarm/pump", "{}") == 0);
    CHECK(broker.log().find("outpost-gw-1 already connected") == std::string::npos);
    // The ids a gateway may use are still its own: another client id is refused.
    BrokerClient other(broker, gateway_login(gw2, "gw-2"));
    CHECK(other.connect() == 0x87);
}
