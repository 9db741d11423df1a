// A session process's report line (src/bridge/processes/figures_line.h) carries every
// figure its supervisor sums, latencies bucket by bucket, and anything else
// on the pipe is refused rather than misread.
#include "bridge/processes/figures_line.h"

#include <catch2/catch.hpp>

using namespace outpost::bridge;

namespace {

BridgeFigures sample() {
    BridgeFigures figures;
    figures.received = 11;
    figures.redelivered = 2;
    figures.forwarded = 7;
    figures.duplicates = 1;
    figures.paced = 5;
    figures.quarantined_total = 2;
    figures.quarantined = {{"malformed_json", 2}};
    figures.rocketmq_errors_total = 3;
    figures.rocketmq_errors = {{"unavailable", 3}};
    figures.holding = true;
    figures.held_ms_max = 1234;
    figures.mqtt_connects = 4;
    figures.mqtt_sessions = {{"bridge-1", true}};
    figures.retired_sessions = {{"bridge-2", RetiredState::kDraining},
                                {"bridge-3", RetiredState::kEnded}};
    figures.rocketmq_refused = "NO_PERMISSION \"x\"";
    figures.send_latency.record(std::chrono::microseconds(300));
    figures.send_latency.record(std::chrono::microseconds(9000));
    figures.forward_latency.record(std::chrono::microseconds(20000));
    figures.wait_latency.record(std::chrono::microseconds(6000));
    figures.receipts = ReceiptFigures{1, 2, 3, 4, 5, 6, 7, 8};
    return figures;
}

}  // namespace

TEST_CASE("a report line gives back every figure of the session process") {
    const BridgeFigures in = sample();
    const std::string line = format_figures_line(in);
    REQUIRE(line.back() == '\n');
    REQUIRE(line.find('\n') == line.size() - 1);  // one line
    const std::optional<BridgeFigures> out =
        parse_figures_line(std::string_view(line).substr(0, line.size() - 1));
    REQUIRE(out.has_value());
    CHECK(out->received == 11);
    CHECK(out->redelivered == 2);
    CHECK(out->forwarded == 7);
    CHECK(out->duplicates == 1);
    CHECK(out->paced == 5);
    CHECK(out->quarantined_total == 2);
    CHECK(out->quarantined == in.quarantined);
    CHECK(out->rocketmq_errors_total == 3);
    CHECK(out->rocketmq_errors == in.rocketmq_errors);
    CHECK(out->holding);
    CHECK(out->held_ms_max == 1234);
    CHECK(out->mqtt_connects == 4);
    CHECK(out->mqtt_sessions == in.mqtt_sessions);
    CHECK(out->retired_sessions == in.retired_sessions);
    CHECK(out->rocketmq_refused == in.rocketmq_refused);
    CHECK(out->send_latency.count() == 2);
    CHECK(out->send_latency.sum_us() == in.send_latency.sum_us());
    CHECK(out->send_latency.count_below(std::chrono::microseconds(512)) == 1);
    CHECK(out->send_latency.count_below(std::chrono::microseconds(16384)) == 2);
    CHECK(out->forward_latency.count() == 1);
    CHECK(out->forward_latency.sum_us() == 20000);
    CHECK(out->wait_latency.count() == 1);
    CHECK(out->wait_latency.sum_us() == 6000);
    REQUIRE(out->receipts.has_value());
    CHECK(out->receipts->ids_offered == 1);
    CHECK(out->receipts->ack_failed == 7);
    CHECK(out->receipts->rejections_offered == 8);
}

TEST_CASE("latency histograms of several processes merge into the histogram of all samples") {
    LatencyHistogram a, b, all;
    for (int us : {100, 2000, 40000}) {
        a.record(std::chrono::microseconds(us));
        all.record(std::chrono::microseconds(us));
    }
    for (int us : {150, 70000}) {
        b.record(std::chrono::microseconds(us));
        all.record(std::chrono::microseconds(us));
    }
    a.merge(b);
    CHECK(a.count() == all.count());
    CHECK(a.sum_us() == all.sum_us());
    CHECK(a.nonzero_buckets() == all.nonzero_buckets());
    CHECK(a.percentile_us(0.5) == all.percentile_us(0.5));
}

TEST_CASE("lines that are not reports are refused") {
    CHECK_FALSE(parse_figures_line("").has_value());
    CHECK_FALSE(parse_figures_line("outpost-bridge info: started").has_value());
    CHECK_FALSE(parse_figures_line("B {not json").has_value());
    CHECK_FALSE(parse_figures_line("B {\"received\":1}").has_value());
    CHECK_FALSE(parse_figures_line("T 1 2 3 4 5 6 7 8 9 1 0 ").has_value());
    // A report of another kind, with fields a bridge report also has.
    CHECK_FALSE(parse_figures_line(R"(T {"received":1,"forwarded":1})").has_value());
}

TEST_CASE("a report naming a retired session state this bridge does not know is refused") {
    std::string line = format_figures_line(sample());
    const std::string known = R"("bridge-2":"draining")";
    const size_t at = line.find(known);
    REQUIRE(at != std::string::npos);
    line.replace(at, known.size(), R"("bridge-2":"gone")");
    CHECK_FALSE(parse_figures_line(std::string_view(line).substr(0, line.size() - 1)).has_value());
}
