#include "bridge/ops/watchdog.h"

#include <pthread.h>

#include <algorithm>
#include <vector>

#include "bridge/ops/stall_detector.h"
#include "common/service_log.h"

namespace outpost::bridge {
namespace {

void notify(const Notifier& notifier, const std::string& message) {
    if (Status sent = notifier.send(message); !sent.is_ok()) log_warning(sent.message());
}

}  // namespace

std::string status_summary(const BridgeFigures& figures) {
    std::string line = "forwarded " + std::to_string(figures.forwarded) + ", quarantined " +
                       std::to_string(figures.quarantined_total) + ", in hand " +
                       std::to_string(figures.in_hand());
    if (figures.holding) line += ", RocketMQ failing";
    for (const auto& [client_id, connected] : figures.mqtt_sessions) {
        if (!connected) line += ", MQTT " + client_id + " disconnected";
    }
    return line;
}

Watchdog::Watchdog(const Notifier& notifier, const FiguresSource& source,
                   std::chrono::milliseconds stall_limit, std::chrono::milliseconds status_interval)
    : notifier_(notifier),
      source_(source),
      stall_limit_(stall_limit),
      period_(notifier.watchdog_interval().count() > 0
                  ? std::chrono::duration_cast<std::chrono::milliseconds>(
                        notifier.watchdog_interval() / 2)
                  : status_interval) {
    if (!notifier_.enabled()) return;
    if (notifier_.watchdog_interval().count() > 0) {
        log_info("systemd watchdog: checking forwarding every " + std::to_string(period_.count()) +
                 " ms; stalled after " + std::to_string(stall_limit_.count()) +
                 " ms without SEND_OK or RocketMQ answer while a message is in hand");
    }
    thread_ = std::thread([this] { run(); });
}

Watchdog::~Watchdog() {
    if (!thread_.joinable()) return;
    stop_.request_stop();
    thread_.join();
}

void Watchdog::run() {
    pthread_setname_np(pthread_self(), "watchdog");
    const bool watching = notifier_.watchdog_interval().count() > 0;
    std::vector<StallDetector> detectors;  // one per lane
    bool stalled = false;
    do {
        const BridgeFigures figures = source_.figures();
        std::string message = "STATUS=" + status_summary(figures);
        if (watching) {
            const std::vector<BridgeFigures> lanes = source_.lanes();
            while (detectors.size() < lanes.size()) detectors.emplace_back(stall_limit_);
            const auto now = std::chrono::steady_clock::now();
            bool healthy = true;
            std::uint64_t in_hand = 0;
            std::chrono::milliseconds quiet{0};
            for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
                const BridgeFigures& own = lanes[lane];
                if (detectors[lane].healthy(
                        {own.received, own.settled() + own.abandoned, own.rocketmq_errors_total,
                         !own.rocketmq_refused.empty()},
                        now)) {
                    continue;
                }
                healthy = false;
                in_hand += own.in_hand();
                quiet = std::max(quiet, detectors[lane].quiet_for());
            }
            if (healthy) {
                if (stalled) log_info("forwarding moves again; WATCHDOG=1 resumed");
                message += "\nWATCHDOG=1";
            } else if (!stalled) {
                log_error("forwarding stalled: " + std::to_string(in_hand) +
                          " message(s) in hand and neither SEND_OK nor a RocketMQ answer for " +
                          std::to_string(quiet.count()) +
                          " ms; withholding WATCHDOG=1 so that systemd restarts outpost-bridge");
            }
            stalled = !healthy;
        }
        notify(notifier_, message);
    } while (!stop_.wait_for(period_));
}

}  // namespace outpost::bridge
