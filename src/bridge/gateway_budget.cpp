#include "bridge/gateway_budget.h"

#include <algorithm>
#include <iterator>

namespace outpost::bridge {
namespace {

// Buckets kept before the first clean-up: a fleet's worth, cheap to scan.
constexpr std::size_t kForgetAbove = 4096;

}  // namespace

GatewayBudget::GatewayBudget(double per_second, Clock::duration report_interval)
    : per_second_(per_second),
      capacity_(std::max(1.0, per_second)),
      report_interval_(report_interval),
      forget_above_(kForgetAbove) {}

double GatewayBudget::refilled(const Bucket& bucket, Clock::time_point now) const {
    const double elapsed_s = std::chrono::duration<double>(now - bucket.updated).count();
    return std::min(capacity_, bucket.tokens + std::max(0.0, elapsed_s) * per_second_);
}

bool GatewayBudget::take(const std::string& gateway, Clock::time_point now) {
    if (per_second_ <= 0) return true;
    auto found = buckets_.find(gateway);
    if (found == buckets_.end()) {
        if (buckets_.size() >= forget_above_) forget_full(now);
        found = buckets_.emplace(gateway, Bucket{capacity_, now, 0}).first;
    }
    Bucket& bucket = found->second;
    bucket.tokens = refilled(bucket, now);
    bucket.updated = now;
    if (bucket.tokens >= 1.0) {
        bucket.tokens -= 1.0;
        return true;
    }
    ++bucket.paced;
    ++paced_since_report_;
    return false;
}

std::optional<PacedReport> GatewayBudget::report_due(Clock::time_point now) {
    if (paced_since_report_ == 0) return std::nullopt;
    if (last_report_ && now - *last_report_ < report_interval_) return std::nullopt;
    PacedReport report;
    report.paced = paced_since_report_;
    for (auto& [gateway, bucket] : buckets_) {
        if (bucket.paced == 0) continue;
        ++report.gateways_paced;
        if (bucket.paced > report.top_paced) {
            report.top_paced = bucket.paced;
            report.top_gateway = gateway;
        }
        bucket.paced = 0;
    }
    paced_since_report_ = 0;
    last_report_ = now;
    return report;
}

void GatewayBudget::forget_full(Clock::time_point now) {
    for (auto it = buckets_.begin(); it != buckets_.end();) {
        it = (it->second.paced == 0 && refilled(it->second, now) >= capacity_) ? buckets_.erase(it)
                                                                               : std::next(it);
    }
    // Amortised: the next clean-up waits until the map has doubled again.
    forget_above_ = std::max(kForgetAbove, 2 * buckets_.size());
}

}  // namespace outpost::bridge
