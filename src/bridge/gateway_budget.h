// Fairness between gateways: limits.max_messages_per_s_per_gateway as one
// token bucket per gateway (the topic level identity.gateway_level, which the
// broker's ACL binds to the authenticated gateway).
//
// Why deferring and not waiting: paho runs every message callback of a
// process on one receive thread, so a callback that waits for a flooding
// gateway's next slot (limits.max_messages_per_s) makes every other gateway's
// alarm wait behind it. Over its budget, a gateway's message is deferred
// instead: the callback returns at once (the broker gets its PUBACK), the
// message is neither sent to RocketMQ nor answered with a receipt, and the
// gateway, which waits for a receipt, publishes it again after its
// receipt_timeout (Delivery, Verdict::kPaced). So the flooder is paced by its
// own republishing and the others never wait for it.
//
// The bucket holds at most one second of budget (at least one message) and
// refills continuously; a gateway never seen starts full. A full bucket is
// the same as no bucket, which is what keeps the map bounded: when it grows
// past its threshold, full buckets are forgotten.
//
// Pure: every call takes the time, so tests drive it with a fake clock. Not
// thread-safe (Delivery holds its mutex around it).
#ifndef OUTPOST_BRIDGE_GATEWAY_BUDGET_H
#define OUTPOST_BRIDGE_GATEWAY_BUDGET_H

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace outpost::bridge {

// The gateway that deferred most since the last report, for one log line.
struct PacedReport {
    std::string top_gateway;
    std::uint64_t top_paced = 0;     // its messages deferred in the interval
    std::uint64_t paced = 0;         // all gateways' messages deferred in the interval
    std::size_t gateways_paced = 0;  // gateways with a message deferred in the interval
};

class GatewayBudget final {
  public:
    using Clock = std::chrono::steady_clock;

    // `per_second` messages per second per gateway; 0 or less: unlimited
    // (take() always succeeds and nothing is tracked). `report_interval`:
    // the shortest time between two reports.
    GatewayBudget(double per_second, Clock::duration report_interval);

    // Takes one message's slot for `gateway` at `now` (not decreasing from
    // call to call). False: the gateway is over its budget; the deferral is
    // counted towards the next report.
    bool take(const std::string& gateway, Clock::time_point now);

    // When something was deferred since the last report and the report
    // interval has passed since it (or this is the first): what to log; the
    // interval's counts start again from zero.
    std::optional<PacedReport> report_due(Clock::time_point now);

    // Gateways with a bucket that is not full (tests watch the bound).
    std::size_t tracked() const { return buckets_.size(); }

  private:
    struct Bucket {
        double tokens = 0;
        Clock::time_point updated{};
        std::uint64_t paced = 0;  // deferred since the last report
    };
    // Tokens of `bucket` refilled up to `now`.
    double refilled(const Bucket& bucket, Clock::time_point now) const;
    // Forgets the full buckets that deferred nothing since the last report.
    void forget_full(Clock::time_point now);

    const double per_second_;
    const double capacity_;  // one second of budget, at least one message
    const Clock::duration report_interval_;
    std::unordered_map<std::string, Bucket> buckets_;
    std::size_t forget_above_;  // size past which forget_full() runs
    std::optional<Clock::time_point> last_report_;
    std::uint64_t paced_since_report_ = 0;
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_GATEWAY_BUDGET_H
