// The duplicate-suppression memory is a bounded LRU.
#include "bridge/recent_event_ids.h"

#include <catch2/catch.hpp>
#include <string>

using outpost::bridge::RecentEventIds;

TEST_CASE("a remembered id is found; an unknown one is not") {
    RecentEventIds recent(3);
    recent.insert("a");
    CHECK(recent.contains("a"));
    CHECK_FALSE(recent.contains("b"));
    recent.insert("a");
    CHECK(recent.size() == 1);
}

TEST_CASE("when full, the least recently seen id is forgotten first") {
    RecentEventIds recent(3);
    recent.insert("a");
    recent.insert("b");
    recent.insert("c");
    CHECK(recent.contains("a"));  // a is now the most recent; b the least
    recent.insert("d");
    CHECK_FALSE(recent.contains("b"));
    CHECK(recent.contains("a"));
    CHECK(recent.contains("c"));
    CHECK(recent.contains("d"));
    CHECK(recent.size() == 3);
}

TEST_CASE("memory stays bounded over many ids") {
    RecentEventIds recent(1000);
    for (int i = 0; i < 100000; ++i) recent.insert("id-" + std::to_string(i));
    CHECK(recent.size() == 1000);
    CHECK(recent.contains("id-99999"));
    CHECK(recent.contains("id-99000"));
    CHECK_FALSE(recent.contains("id-98999"));
}

TEST_CASE("capacity 0 remembers nothing") {
    RecentEventIds recent(0);
    recent.insert("a");
    CHECK_FALSE(recent.contains("a"));
    CHECK(recent.size() == 0);
}
