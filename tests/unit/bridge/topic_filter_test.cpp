// MQTT filter matching for mapping rules (MQTT v5 section 4.7).
#include "bridge/mqtt/topic_filter.h"

#include <catch2/catch.hpp>

using namespace outpost::bridge;

TEST_CASE("wildcards match whole levels") {
    CHECK(topic_matches_filter("outpost/+/alarm/+", "outpost/gw-1/alarm/dev-1"));
    CHECK_FALSE(topic_matches_filter("outpost/+/alarm/+", "outpost/gw-1/alarm/dev-1/x"));
    CHECK_FALSE(topic_matches_filter("outpost/+/alarm/+", "outpost/gw-1/telemetry/dev-1"));
    CHECK(topic_matches_filter("outpost/#", "outpost/gw-1/alarm/dev-1"));
    CHECK(topic_matches_filter("outpost/#", "outpost"));
    CHECK(topic_matches_filter("#", "anything/at/all"));
    CHECK(topic_matches_filter("a/+/c", "a//c"));
    CHECK_FALSE(topic_matches_filter("a/b", "a/b/"));
}

TEST_CASE("topics starting with $ are not matched by a leading wildcard") {
    CHECK_FALSE(topic_matches_filter("#", "$SYS/broker/uptime"));
    CHECK_FALSE(topic_matches_filter("+/broker/uptime", "$SYS/broker/uptime"));
    CHECK(topic_matches_filter("$SYS/#", "$SYS/broker/uptime"));
}

TEST_CASE("malformed filters are refused") {
    CHECK(is_valid_topic_filter("outpost/+/alarm/+"));
    CHECK(is_valid_topic_filter("#"));
    CHECK_FALSE(is_valid_topic_filter(""));
    CHECK_FALSE(is_valid_topic_filter("a/#/b"));
    CHECK_FALSE(is_valid_topic_filter("a/b+"));
    CHECK_FALSE(is_valid_topic_filter("a#"));
    CHECK_FALSE(is_valid_topic_filter("$share/group/a"));
}
