// The telemetry process's report line (src/daemon/telemetry_stats_line.h):
// what outpostd's metrics know of the lane comes through it.
#include <catch2/catch.hpp>
#include <string>

#include "daemon/telemetry_stats_line.h"

using outpost::TelemetryStats;
using namespace outpost::daemon;

TEST_CASE("a report line carries every counter and the last error, on one line") {
    TelemetryStats stats;
    stats.offered = 18446744073709551615ull;  // the largest counter survives
    stats.published = 2;
    stats.coalesced = 3;
    stats.dropped_ring_full = 4;
    stats.dropped_oversize = 5;
    stats.dropped_invalid = 6;
    stats.dropped_disconnected = 7;
    stats.datagrams = 8;
    stats.ring_depth = 9;
    stats.connected = true;
    stats.reconnects = 10;
    stats.last_error = "connect failed:\nbroker said no";
    const std::string line = format_telemetry_stats(stats);
    REQUIRE(line.back() == '\n');
    REQUIRE(line.find('\n') == line.size() - 1);

    auto back = parse_telemetry_stats(std::string_view(line).substr(0, line.size() - 1));
    REQUIRE(back.has_value());
    CHECK(back->offered == stats.offered);
    CHECK(back->published == 2);
    CHECK(back->coalesced == 3);
    CHECK(back->dropped_ring_full == 4);
    CHECK(back->dropped_oversize == 5);
    CHECK(back->dropped_invalid == 6);
    CHECK(back->dropped_disconnected == 7);
    CHECK(back->datagrams == 8);
    CHECK(back->ring_depth == 9);
    CHECK(back->connected);
    CHECK(back->reconnects == 10);
    CHECK(back->last_error == "connect failed: broker said no");
}

TEST_CASE("a line that is not a whole report is refused") {
    const std::string whole =
        R"({"offered":1,"published":2,"coalesced":3,"ring_full":4,"oversize":5,"invalid":6,)"
        R"("disconnected":7,"datagrams":8,"ring_depth":9,"connected":false,"reconnects":10,)"
        R"("last_error":""})";
    CHECK_FALSE(parse_telemetry_stats("").has_value());
    CHECK_FALSE(
        parse_telemetry_stats(R"(T {"offered":1,"published":2,"coalesced":3})").has_value());
    CHECK_FALSE(parse_telemetry_stats("X " + whole).has_value());
    CHECK_FALSE(parse_telemetry_stats("B " + whole).has_value());
    CHECK_FALSE(parse_telemetry_stats("T " + whole.substr(0, whole.size() - 1)).has_value());
    std::string wrong_type = whole;
    wrong_type.replace(wrong_type.find("\"offered\":1"), 11, "\"offered\":\"1\"");
    CHECK_FALSE(parse_telemetry_stats("T " + wrong_type).has_value());
    CHECK_FALSE(parse_telemetry_stats("T 1 2 3 4 5 6 7 8 9 0 10 ").has_value());
    CHECK(parse_telemetry_stats("T " + whole).has_value());
}
