// The report line every supervised child writes (common/child_report.h):
// one line, its kind's letter, one JSON object; a line of another kind, a
// log line or a torn line is refused, never misread.
#include "common/child_report.h"

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

using outpost::format_child_report;
using outpost::kBridgeSessionReport;
using outpost::kTelemetryReport;
using outpost::parse_child_report;
using outpost::write_child_report;

TEST_CASE("a report is one line of its kind that parses back to its object") {
    const nlohmann::json report = {
        {"count", 18446744073709551615ull}, {"text", "two\nlines"}, {"nested", {{"a", 1}}}};
    const std::string line = format_child_report(kTelemetryReport, report);
    REQUIRE(line.back() == '\n');
    REQUIRE(line.find('\n') == line.size() - 1);
    CHECK(line.rfind("T {", 0) == 0);
    auto back =
        parse_child_report(kTelemetryReport, std::string_view(line).substr(0, line.size() - 1));
    REQUIRE(back.has_value());
    CHECK(*back == report);
}

TEST_CASE("text that is not UTF-8 is replaced, not thrown about") {
    const std::string line = format_child_report(kBridgeSessionReport, {{"text", "bad \xff byte"}});
    auto back =
        parse_child_report(kBridgeSessionReport, std::string_view(line).substr(0, line.size() - 1));
    REQUIRE(back.has_value());
    CHECK(back->at("text").get<std::string>().rfind("bad ", 0) == 0);
}

TEST_CASE("a line that is not a report of the kind asked for is refused") {
    CHECK_FALSE(parse_child_report(kTelemetryReport, "").has_value());
    CHECK_FALSE(parse_child_report(kTelemetryReport, "T").has_value());
    CHECK_FALSE(parse_child_report(kTelemetryReport, "T ").has_value());
    CHECK_FALSE(parse_child_report(kTelemetryReport, "T{\"a\":1}").has_value());
    CHECK_FALSE(parse_child_report(kTelemetryReport, "B {\"a\":1}").has_value());
    CHECK_FALSE(parse_child_report(kBridgeSessionReport, "T {\"a\":1}").has_value());
    CHECK_FALSE(parse_child_report(kTelemetryReport, "T {\"a\":1").has_value());
    CHECK_FALSE(parse_child_report(kTelemetryReport, "T {\"a\":1} trailing").has_value());
    CHECK_FALSE(parse_child_report(kTelemetryReport, "T [1,2]").has_value());
    CHECK_FALSE(parse_child_report(kTelemetryReport, "T 1 2 3 4 5 6 7 8 9 1 10 ").has_value());
    CHECK_FALSE(
        parse_child_report(kTelemetryReport, "outpost-telemetry info: started").has_value());
    CHECK(parse_child_report(kTelemetryReport, "T {}").has_value());
}

TEST_CASE("a report is written whole, and a pipe closed at the far end is a false") {
    ::signal(SIGPIPE, SIG_IGN);  // so the closed pipe is EPIPE, not the end of the test
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const std::string line = format_child_report(kTelemetryReport, {{"a", 1}});
    CHECK(write_child_report(fds[1], line));
    std::string read_back(line.size(), '\0');
    REQUIRE(::read(fds[0], read_back.data(), read_back.size()) ==
            static_cast<ssize_t>(line.size()));
    CHECK(read_back == line);
    ::close(fds[0]);
    CHECK_FALSE(write_child_report(fds[1], line));
    ::close(fds[1]);
}
