// The duplicate-suppression memory is a bounded LRU.
#include "bridge/recent_event_ids.h"

#include <catch2/catch.hpp>
#include <string>

using outpost::bridge::RecentEventIds;

TEST_CASE("a remembered id is found; an unknown one is not") {
    RecentEventIds recent(3);
    recent.insert("gw-1", "a");
    CHECK(recent.contains("gw-1", "a"));
    CHECK_FALSE(recent.contains("gw-1", "b"));
    recent.insert("gw-1", "a");
    CHECK(recent.size() == 1);
}

TEST_CASE("when full, the least recently seen id is forgotten first") {
    RecentEventIds recent(3);
    recent.insert("gw-1", "a");
    recent.insert("gw-1", "b");
    recent.insert("gw-1", "c");
    CHECK(recent.contains("gw-1", "a"));  // a is now the most recent; b the least
    recent.insert("gw-1", "d");
    CHECK_FALSE(recent.contains("gw-1", "b"));
    CHECK(recent.contains("gw-1", "a"));
    CHECK(recent.contains("gw-1", "c"));
    CHECK(recent.contains("gw-1", "d"));
    CHECK(recent.size() == 3);
}

TEST_CASE("memory stays bounded over many ids") {
    RecentEventIds recent(1000);
    for (int i = 0; i < 100000; ++i) recent.insert("gw-1", "id-" + std::to_string(i));
    CHECK(recent.size() == 1000);
    CHECK(recent.contains("gw-1", "id-99999"));
    CHECK(recent.contains("gw-1", "id-99000"));
    CHECK_FALSE(recent.contains("gw-1", "id-98999"));
}

TEST_CASE("capacity 0 remembers nothing") {
    RecentEventIds recent(0);
    recent.insert("gw-1", "a");
    CHECK_FALSE(recent.contains("gw-1", "a"));
    CHECK(recent.size() == 0);
}

TEST_CASE("the same eventId from another gateway is another event") {
    RecentEventIds recent(3);
    recent.insert("gw-1", "a");
    CHECK(recent.contains("gw-1", "a"));
    CHECK_FALSE(recent.contains("gw-2", "a"));
    recent.insert("gw-2", "a");
    CHECK(recent.size() == 2);
}
