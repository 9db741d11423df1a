// occurredAt: how the store writes a wall clock, and what the bridge takes.
#include "common/rfc3339.h"

#include <time.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>

#include "date_time_samples.h"

using outpost::format_rfc3339_ms;
using outpost::is_rfc3339_date_time;

TEST_CASE("wall clocks are written as UTC with milliseconds, across the whole four-digit range") {
    CHECK(format_rfc3339_ms(0) == "1970-01-01T00:00:00.000Z");
    CHECK(format_rfc3339_ms(12345) == "1970-01-01T00:00:12.345Z");
    CHECK(format_rfc3339_ms(-1) == "1969-12-31T23:59:59.999Z");
    CHECK(format_rfc3339_ms(1'709'210'096'789) == "2024-02-29T12:34:56.789Z");
    CHECK(format_rfc3339_ms(2'147'483'648'000) == "2038-01-19T03:14:08.000Z");
    CHECK(format_rfc3339_ms(outpost::kLastRfc3339Ms) == "9999-12-31T23:59:59.999Z");
    CHECK(format_rfc3339_ms(outpost::kFirstRfc3339Ms) == "0000-01-01T00:00:00.000Z");
}

TEST_CASE("a wall clock beyond year 9999 or before year 0 is clamped, never a malformed date") {
    CHECK(format_rfc3339_ms(std::numeric_limits<std::int64_t>::max()) ==
          "9999-12-31T23:59:59.999Z");
    CHECK(format_rfc3339_ms(outpost::kLastRfc3339Ms + 1) == "9999-12-31T23:59:59.999Z");
    CHECK(format_rfc3339_ms(std::numeric_limits<std::int64_t>::min()) ==
          "0000-01-01T00:00:00.000Z");
}

TEST_CASE("the written date agrees with the C library's gmtime, and always passes the check") {
    if (sizeof(time_t) < 8) {
        SUCCEED("time_t has 32 bits here: gmtime cannot serve as the reference");
        return;
    }
    std::mt19937_64 random(42);
    for (int i = 0; i < 20000; ++i) {
        const std::int64_t ms =
            outpost::kFirstRfc3339Ms +
            static_cast<std::int64_t>(
                random() %
                static_cast<std::uint64_t>(outpost::kLastRfc3339Ms - outpost::kFirstRfc3339Ms + 1));
        const std::int64_t seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
        const time_t t = static_cast<time_t>(seconds);
        tm utc{};
        REQUIRE(gmtime_r(&t, &utc) != nullptr);
        char expected[96];
        std::snprintf(expected, sizeof expected, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                      utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                      utc.tm_sec, static_cast<int>(ms - seconds * 1000));
        const std::string written = format_rfc3339_ms(ms);
        INFO("ms " << ms);
        REQUIRE(written == expected);
        REQUIRE(is_rfc3339_date_time(written));
    }
}

TEST_CASE("the check takes RFC 3339 date-times and nothing else") {
    for (const std::string& good : outpost::testing::good_date_times()) {
        INFO(good);
        CHECK(is_rfc3339_date_time(good));
    }
    for (const std::string& bad : outpost::testing::bad_date_times()) {
        INFO(bad);
        CHECK_FALSE(is_rfc3339_date_time(bad));
    }
}
