#include "rocketmq/broker_durability.h"

#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "rocketmq/codes.h"
#include "rocketmq/connection.h"
#include "rocketmq/route.h"

namespace outpost::rocketmq {
namespace {

std::string setting(const BrokerSettings& settings, const std::string& key) {
    const auto found = settings.find(key);
    return found == settings.end() ? std::string() : found->second;
}

bool enabled(const BrokerSettings& settings, const std::string& key) {
    return setting(settings, key) == "true";
}

// The replica count inSyncReplicas names; 1 (its default) when absent or
// not a number.
int replica_count(const std::string& text) {
    if (text.empty() || text.size() > 3 ||
        text.find_first_not_of("0123456789") != std::string::npos) {
        return 1;
    }
    return std::stoi(text);
}

}  // namespace

const char* durability_name(Durability durability) {
    switch (durability) {
        case Durability::kDurable:
            return "durable";
        case Durability::kNotDurable:
            return "not_durable";
        case Durability::kUnknown:
            break;
    }
    return "unknown";
}

BrokerDurability judge_broker_durability(const BrokerSettings& settings) {
    BrokerDurability judged;
    judged.flush_disk_type = setting(settings, "flushDiskType");
    judged.broker_role = setting(settings, "brokerRole");
    judged.in_sync_replicas = setting(settings, "inSyncReplicas");
    if (judged.flush_disk_type.empty() || judged.broker_role.empty()) {
        judged.reason = "the broker did not report flushDiskType and brokerRole";
        return judged;
    }
    if (enabled(settings, "enableDLegerCommitLog")) {
        judged.reason = "the commit log is DLedger's (enableDLegerCommitLog): its own flush and "
                        "quorum settings decide, which are not judged here";
        return judged;
    }
    if (judged.flush_disk_type == "SYNC_FLUSH") {
        judged.verdict = Durability::kDurable;
        judged.reason = "SEND_OK comes after the master fsynced the message (SYNC_FLUSH)";
        return judged;
    }
    if (enabled(settings, "enableControllerMode") || enabled(settings, "enableSlaveActingMaster")) {
        judged.reason = "replication is decided by the controller or slave-acting-master mode, "
                        "which is not judged here, and the flush is asynchronous";
        return judged;
    }
    const int replicas = replica_count(judged.in_sync_replicas);
    if (judged.broker_role == "SYNC_MASTER" && replicas >= 2) {
        judged.verdict = Durability::kDurable;
        judged.reason = "SEND_OK comes after " + std::to_string(replicas - 1) +
                        " slave(s) hold the message (SYNC_MASTER, inSyncReplicas=" +
                        std::to_string(replicas) + ")";
        return judged;
    }
    judged.verdict = Durability::kNotDurable;
    judged.reason = "SEND_OK comes once the message is in the master's page cache: a power cut "
                    "or kernel crash of that machine can lose it";
    if (judged.broker_role == "SYNC_MASTER") {
        judged.reason += " (SYNC_MASTER waits for no slave while inSyncReplicas is 1)";
    }
    if (enabled(settings, "transientStorePoolEnable")) {
        judged.reason += "; with transientStorePoolEnable even a broker process crash can";
    }
    return judged;
}

BrokerDurability unknown_durability(const Status& why) {
    BrokerDurability judged;
    judged.reason = why.to_string();
    return judged;
}

std::string describe_broker_report(const BrokerReport& report) {
    const BrokerDurability& judged = report.durability;
    std::string text = "broker " + report.broker_name + " (" + report.address + ")";
    if (!judged.flush_disk_type.empty() || !judged.broker_role.empty()) {
        text += ": flushDiskType=" + judged.flush_disk_type + " brokerRole=" + judged.broker_role +
                " inSyncReplicas=" + judged.in_sync_replicas;
    }
    const char* verdict = judged.verdict == Durability::kDurable      ? "durable"
                          : judged.verdict == Durability::kNotDurable ? "not durable"
                                                                      : "unknown";
    return text + ": " + verdict + ": " + judged.reason;
}

Result<std::vector<BrokerReport>> survey_broker_durability(
    const std::vector<std::string>& name_servers, const std::vector<std::string>& topics,
    const ClientSecurity& security, std::chrono::milliseconds timeout) {
    if (name_servers.empty() || topics.empty()) {
        return Status::error(StatusCode::kInvalidArgument,
                             "a broker survey needs a name server and a topic");
    }
    // Every lookup goes to the first name server that answers one.
    std::vector<std::unique_ptr<Connection>> connections;
    for (const std::string& address : name_servers) {
        connections.push_back(std::make_unique<Connection>(address, 1, security));
    }
    Status last = Status::error(StatusCode::kUnavailable, "no name server was asked");
    auto lookup = [&](const std::string& topic) -> Result<TopicRoute> {
        for (const auto& name_server : connections) {
            Result<TopicRoute> route = query_topic_route(*name_server, topic, timeout);
            if (route.is_ok() || route.status().code() == StatusCode::kNotFound) return route;
            last = route.status();
        }
        return last;
    };
    std::map<std::string, std::string> masters;  // broker name -> address
    bool answered = false;
    for (const std::string& topic : topics) {
        Result<TopicRoute> route = lookup(topic);
        if (!route.is_ok() && route.status().code() == StatusCode::kNotFound) {
            route = lookup(kAutoCreateTopicTemplate);
        }
        if (!route.is_ok()) {
            if (route.status().code() == StatusCode::kNotFound) answered = true;
            continue;
        }
        answered = true;
        for (const BrokerData& broker : route->brokers) {
            const std::string master = route->master_address(broker.broker_name);
            if (!master.empty()) masters[broker.broker_name] = master;
        }
    }
    if (!answered) return last.with_context("broker survey");
    std::vector<BrokerReport> reports;
    for (const auto& [name, address] : masters) {
        Connection broker(address, 1, security);
        Result<BrokerSettings> settings = query_broker_settings(broker, timeout);
        reports.push_back(BrokerReport{name, address,
                                       settings.is_ok() ? judge_broker_durability(*settings)
                                                        : unknown_durability(settings.status())});
    }
    return reports;
}

}  // namespace outpost::rocketmq
