// Several name servers: every one is asked in turn, and the one that
// answered last is asked first, so a dead entry costs one failure per
// failover instead of one per lookup.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "rocketmq/name_server_list.h"

using outpost::rocketmq::NameServerList;
using outpost::rocketmq::split_name_server_addresses;
using List = std::vector<std::string>;

TEST_CASE("addresses split on ';' and empty items are skipped") {
    CHECK(split_name_server_addresses("a:1;;b:2;") == List{"a:1", "b:2"});
    CHECK(split_name_server_addresses("").empty());
    CHECK(NameServerList(";").empty());
}

TEST_CASE("the configured order holds until another name server answers") {
    NameServerList servers("10.0.0.1:9876;10.0.0.2:9876;10.0.0.3:9876");
    CHECK(servers.in_asking_order() == List{"10.0.0.1:9876", "10.0.0.2:9876", "10.0.0.3:9876"});
    servers.answered("10.0.0.2:9876");
    CHECK(servers.in_asking_order() == List{"10.0.0.2:9876", "10.0.0.3:9876", "10.0.0.1:9876"});
    servers.answered("10.0.0.9:9876");  // not ours: nothing changes
    CHECK(servers.in_asking_order().front() == "10.0.0.2:9876");
    servers.answered("10.0.0.1:9876");
    CHECK(servers.in_asking_order().front() == "10.0.0.1:9876");
}

TEST_CASE("a failing name server is news once, until it answers again") {
    NameServerList servers("10.0.0.1:9876;10.0.0.2:9876");
    CHECK(servers.failed("10.0.0.1:9876"));
    CHECK_FALSE(servers.failed("10.0.0.1:9876"));    // still failing: not news
    CHECK_FALSE(servers.answered("10.0.0.2:9876"));  // never failed
    CHECK(servers.answered("10.0.0.1:9876"));        // back
    CHECK(servers.failed("10.0.0.1:9876"));          // failing again: news again
}
