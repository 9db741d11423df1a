// The outpost_identity plugin's rules (deploy/mosquitto/plugin): which client
// ids each identity may use, and which identities are refused outright.
#include <catch2/catch.hpp>

#include <string>

#include "client_id_rules.h"

using namespace outpost::broker_plugin;

TEST_CASE("a gateway may use exactly its publisher's and its telemetry lane's client ids") {
    CHECK(gateway_may_use("gw-1", "outpost-gw-1"));
    CHECK(gateway_may_use("gw-1", "outpost-gw-1-telemetry"));
    CHECK_FALSE(gateway_may_use("gw-1", "gw-1"));
    CHECK_FALSE(gateway_may_use("gw-1", "outpost-gw-1-receipts"));
    CHECK_FALSE(gateway_may_use("gw-1", "outpost-gw-1-1"));
    CHECK_FALSE(gateway_may_use("gw", "outpost-gw-1"));  // a prefix is not enough
    CHECK_FALSE(gateway_may_use("gw-1", "bridge-1"));
    CHECK_FALSE(gateway_may_use("gw-1", ""));
}

TEST_CASE("a bridge user may use its name, its numbered sessions and its receipt sender") {
    CHECK(bridge_may_use("bridge-1", "bridge-1"));
    CHECK(bridge_may_use("bridge-1", "bridge-1-1"));
    CHECK(bridge_may_use("bridge-1", "bridge-1-72"));
    CHECK(bridge_may_use("bridge-1", "bridge-1-receipts"));
    CHECK_FALSE(bridge_may_use("bridge-1", "bridge-1-0"));
    CHECK_FALSE(bridge_may_use("bridge-1", "bridge-1-01"));
    CHECK_FALSE(bridge_may_use("bridge-1", "bridge-1-1000"));
    CHECK_FALSE(bridge_may_use("bridge-1", "bridge-1-x"));
    CHECK_FALSE(bridge_may_use("bridge-1", "bridge-1-"));
    CHECK_FALSE(bridge_may_use("bridge-1", "outpost-gw-1"));
}

TEST_CASE("identities that would bend an ACL pattern or collide with other ids are refused") {
    CHECK(gateway_identity_problem("gw-1").empty());
    CHECK(gateway_identity_problem("plant_7.line-2").empty());
    for (const std::string bad : {"gw-1/alarm", "gw+", "#", "+", "gw 1", "", "gw\n1", "é"}) {
        INFO("'" << bad << "'");
        CHECK_FALSE(gateway_identity_problem(bad).empty());
        CHECK_FALSE(bridge_username_problem(bad).empty());
    }
    CHECK_FALSE(gateway_identity_problem(std::string(65, 'g')).empty());
    CHECK(gateway_identity_problem(std::string(64, 'g')).empty());
    // Gateway "gw-1-telemetry" would own "outpost-gw-1-telemetry", gw-1's lane.
    CHECK_FALSE(gateway_identity_problem("gw-1-telemetry").empty());
    // A bridge named outpost-... would own gateway client ids.
    CHECK_FALSE(bridge_username_problem("outpost-gw-1").empty());
    CHECK(bridge_username_problem("bridge-1").empty());
}
