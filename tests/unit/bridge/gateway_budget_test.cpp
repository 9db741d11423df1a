// The per-gateway budget on a fake clock: a gateway over its budget is
// paced alone, refills at its rate, and the reports name the worst one at
// most once per interval.
#include "bridge/gateway_budget.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

using outpost::bridge::GatewayBudget;
using outpost::bridge::PacedReport;
using namespace std::chrono_literals;

namespace {

const GatewayBudget::Clock::time_point kStart{};  // the fake clock's zero

// Messages of `gateway` taken at `now`, `count` in a row: how many got a slot.
int taken(GatewayBudget& budget, const std::string& gateway, int count,
          GatewayBudget::Clock::time_point now) {
    int slots = 0;
    for (int i = 0; i < count; ++i) slots += budget.take(gateway, now) ? 1 : 0;
    return slots;
}

}  // namespace

TEST_CASE("a gateway gets one second of budget at once and is paced beyond it") {
    GatewayBudget budget(10, 60s);
    CHECK(taken(budget, "flooder", 100, kStart) == 10);
    CHECK_FALSE(budget.take("flooder", kStart));
}

TEST_CASE("one gateway over its budget takes nothing from the others") {
    GatewayBudget budget(10, 60s);
    CHECK(taken(budget, "flooder", 1000, kStart) == 10);
    for (const char* gateway : {"gw-a", "gw-b", "gw-c", "gw-d"}) {
        CHECK(taken(budget, gateway, 10, kStart) == 10);
    }
}

TEST_CASE("the budget refills at its rate and never above one second's worth") {
    GatewayBudget budget(10, 60s);
    REQUIRE(taken(budget, "gw", 10, kStart) == 10);
    CHECK(taken(budget, "gw", 10, kStart + 100ms) == 1);
    CHECK(taken(budget, "gw", 10, kStart + 350ms) == 2);  // 2.5 tokens: 2 whole
    CHECK(taken(budget, "gw", 10, kStart + 400ms) == 1);  // the half left + 0.5
    // An hour idle fills the bucket to one second's worth, not to 36000.
    CHECK(taken(budget, "gw", 100, kStart + 1h) == 10);
}

TEST_CASE("a rate below one per second still lets one message through, then waits its time") {
    GatewayBudget budget(0.5, 60s);
    CHECK(taken(budget, "gw", 5, kStart) == 1);
    CHECK(taken(budget, "gw", 5, kStart + 1s) == 0);
    CHECK(taken(budget, "gw", 5, kStart + 2s) == 1);
}

TEST_CASE("a budget of 0 is unlimited and tracks nothing") {
    GatewayBudget budget(0, 60s);
    CHECK(taken(budget, "gw", 100000, kStart) == 100000);
    CHECK(budget.tracked() == 0);
    CHECK_FALSE(budget.report_due(kStart + 1h).has_value());
}

TEST_CASE("the report names the gateway paced most, then waits its interval") {
    GatewayBudget budget(1, 60s);
    CHECK_FALSE(budget.report_due(kStart).has_value());  // nothing paced yet
    taken(budget, "flooder", 51, kStart);                // 50 paced
    taken(budget, "noisy", 6, kStart);                   // 5 paced
    taken(budget, "quiet", 1, kStart);                   // none
    const std::optional<PacedReport> first = budget.report_due(kStart);
    REQUIRE(first.has_value());
    CHECK(first->top_gateway == "flooder");
    CHECK(first->top_paced == 50);
    CHECK(first->paced == 55);
    CHECK(first->gateways_paced == 2);

    taken(budget, "noisy", 3, kStart + 1s);  // 2 paced
    CHECK_FALSE(budget.report_due(kStart + 59s).has_value());
    const std::optional<PacedReport> second = budget.report_due(kStart + 60s);
    REQUIRE(second.has_value());  // the counts started again from zero
    CHECK(second->top_gateway == "noisy");
    CHECK(second->paced == 2);
    CHECK(second->gateways_paced == 1);
    CHECK_FALSE(budget.report_due(kStart + 1h).has_value());  // nothing new since
}

TEST_CASE("full buckets are forgotten once many gateways were seen; busy ones are kept") {
    GatewayBudget budget(1, 60s);
    REQUIRE_FALSE(taken(budget, "flooder", 2, kStart) == 2);  // empty and paced
    for (int i = 0; i < 5000; ++i) budget.take("gw-" + std::to_string(i), kStart);
    const std::size_t before = budget.tracked();
    CHECK(before > 4096);
    // A minute later every one-off gateway's bucket is full again: forgotten
    // at the next clean-up, which a new gateway triggers.
    for (int i = 0; i < 5000; ++i) budget.take("late-" + std::to_string(i), kStart + 60s);
    CHECK(budget.tracked() == 1 + 5000);  // the flooder and the late ones
    // The flooder's pacing count survived (it was never full with a pending
    // report), and its budget is still its own.
    const std::optional<PacedReport> report = budget.report_due(kStart + 60s);
    REQUIRE(report.has_value());
    CHECK(report->top_gateway == "flooder");
    CHECK(report->top_paced == 1);
}
