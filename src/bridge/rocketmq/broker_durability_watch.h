// Whether the RocketMQ brokers the bridge writes to make SEND_OK durable
// (rocketmq/broker_durability.h: SYNC_FLUSH, or a SYNC_MASTER that waits
// for a slave). The bridge acknowledges a message to MQTT and sends its
// receipt to the gateway on SEND_OK, and the gateway then forgets the
// event: on a broker that only has it in page cache, a power cut of that
// machine loses what the whole chain has confirmed. The bridge cannot fix
// that setting; it says so, in three places:
//   - the log: one line per broker when its verdict or settings are first
//     known or change (a warning unless durable);
//   - the status line: "rocketmq_brokers" (bridge_stats.h);
//   - the metrics: outpost_bridge_rocketmq_broker_durable{broker} 1 / 0 /
//     -1 (unknown: refused, unreachable, a mode not judged) (metrics.h).
//
// The brokers are the masters behind the mapping rules' topics and the
// quarantine topic, read through the configured name servers at start and
// again every kBrokerSurveyInterval, so a broker added to a route, a new
// master after a failover, or a broker restarted with other settings is
// seen within that interval.
#ifndef OUTPOST_BRIDGE_ROCKETMQ_BROKER_DURABILITY_WATCH_H
#define OUTPOST_BRIDGE_ROCKETMQ_BROKER_DURABILITY_WATCH_H

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bridge/config.h"
#include "bridge/ops/bridge_stats.h"
#include "bridge/stop_signal.h"
#include "rocketmq/broker_durability.h"
#include "rocketmq/client_security.h"

namespace outpost::bridge {

inline constexpr std::chrono::seconds kBrokerSurveyInterval{60};

// The topics whose brokers the bridge writes to: every mapping rule's and
// the quarantine topic, each once.
std::vector<std::string> bridge_topics(const BridgeConfig& config);

// A FiguresSource that adds rocketmq_brokers to `inner`'s figures. Owns one
// thread ("brokers"), started by the constructor (it surveys at once) and
// stopped and joined by the destructor, which waits for a survey under way
// (each request is bounded by rocketmq.send_timeout_ms). Borrows `inner`,
// which must outlive it.
class BrokerDurabilityWatch final : public FiguresSource {
  public:
    BrokerDurabilityWatch(const FiguresSource& inner, const BridgeConfig& config,
                          rocketmq::ClientSecurity security);
    ~BrokerDurabilityWatch() override;
    BrokerDurabilityWatch(const BrokerDurabilityWatch&) = delete;
    BrokerDurabilityWatch& operator=(const BrokerDurabilityWatch&) = delete;

    BridgeFigures figures() const override;
    std::vector<BridgeFigures> lanes() const override { return inner_.lanes(); }

  private:
    void run();
    void survey();

    const FiguresSource& inner_;
    const std::vector<std::string> name_servers_;
    const std::vector<std::string> topics_;
    const rocketmq::ClientSecurity security_;
    const std::chrono::milliseconds timeout_;
    mutable std::mutex mutex_;
    std::vector<rocketmq::BrokerReport> reports_;  // guarded by mutex_; the latest survey's
    // Touched by the thread only: what was logged per broker, and whether
    // the last survey failed (logged once per failing spell).
    std::map<std::string, std::string> logged_;
    bool failing_ = false;
    StopSignal stop_;
    std::thread thread_;
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_ROCKETMQ_BROKER_DURABILITY_WATCH_H
