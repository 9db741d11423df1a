#include "bridge/rocketmq/broker_durability_watch.h"

#include <pthread.h>

#include <algorithm>
#include <utility>

#include "common/service_log.h"
#include "rocketmq/name_server_list.h"

namespace outpost::bridge {

std::vector<std::string> bridge_topics(const BridgeConfig& config) {
    std::vector<std::string> topics;
    for (const MappingRule& rule : config.mapping) topics.push_back(rule.rocketmq_topic);
    topics.push_back(config.quarantine_topic);
    std::sort(topics.begin(), topics.end());
    topics.erase(std::unique(topics.begin(), topics.end()), topics.end());
    return topics;
}

BrokerDurabilityWatch::BrokerDurabilityWatch(const FiguresSource& inner, const BridgeConfig& config,
                                             rocketmq::ClientSecurity security)
    : inner_(inner),
      name_servers_(rocketmq::split_name_server_addresses(config.rocketmq.name_servers)),
      topics_(bridge_topics(config)),
      security_(std::move(security)),
      timeout_(config.rocketmq.send_timeout_ms),
      thread_([this] { run(); }) {}

BrokerDurabilityWatch::~BrokerDurabilityWatch() {
    stop_.request_stop();
    thread_.join();
}

BridgeFigures BrokerDurabilityWatch::figures() const {
    BridgeFigures figures = inner_.figures();
    std::lock_guard<std::mutex> lock(mutex_);
    figures.rocketmq_brokers = reports_;
    return figures;
}

void BrokerDurabilityWatch::run() {
    pthread_setname_np(pthread_self(), "brokers");
    do {
        survey();
    } while (!stop_.wait_for(kBrokerSurveyInterval));
}

void BrokerDurabilityWatch::survey() {
    Result<std::vector<rocketmq::BrokerReport>> reports =
        rocketmq::survey_broker_durability(name_servers_, topics_, security_, timeout_);
    if (!reports.is_ok()) {
        // The last known verdicts stay shown: a name server outage does not
        // change what the brokers promise.
        if (!failing_) {
            log_warning("cannot tell whether RocketMQ's SEND_OK is durable yet: " +
                        reports.status().to_string() + "; trying again every " +
                        std::to_string(kBrokerSurveyInterval.count()) + " s");
        }
        failing_ = true;
        return;
    }
    failing_ = false;
    for (const rocketmq::BrokerReport& report : *reports) {
        // Said once per broker and verdict: the reason of an unknown one
        // (a timeout, a refusal) may vary between surveys without news.
        const rocketmq::BrokerDurability& judged = report.durability;
        const std::string said = report.address + " " + rocketmq::durability_name(judged.verdict) +
                                 " " + judged.flush_disk_type + " " + judged.broker_role + " " +
                                 judged.in_sync_replicas;
        std::string& logged = logged_[report.broker_name];
        if (logged == said) continue;
        logged = said;
        const std::string line = "RocketMQ " + rocketmq::describe_broker_report(report);
        if (judged.verdict == rocketmq::Durability::kDurable) {
            log_info(line);
        } else if (judged.verdict == rocketmq::Durability::kNotDurable) {
            log_warning(line + "; the bridge acknowledges and confirms on SEND_OK, so a message "
                               "confirmed to its gateway can still be lost "
                               "(docs/operations/bridge.md)");
        } else {
            log_warning(line + "; whether SEND_OK is durable is unknown");
        }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    reports_ = std::move(reports).value();
}

}  // namespace outpost::bridge
