// What a broker's SEND_OK promises, judged from its configuration
// (broker_config.h), and the survey of the brokers behind a set of topics.
//
// Durable here means: once the broker answered SEND_OK, a power cut or
// kernel crash of the broker's machine cannot lose the message. RocketMQ
// 5.x answers SEND_OK (to a send with WAIT=true, as ours are) when
//
//   1. flushDiskType=SYNC_FLUSH: after the master fsynced the commit log
//      up to the message (GroupCommitService); a flush slower than
//      syncFlushTimeout answers FLUSH_DISK_TIMEOUT instead.
//   2. brokerRole=SYNC_MASTER: after inSyncReplicas - 1 slaves hold the
//      message (in their memory; each flushes by its own flushDiskType);
//      too few in time answers FLUSH_SLAVE_TIMEOUT / SLAVE_NOT_AVAILABLE.
//      inSyncReplicas counts the master and defaults to 1: a SYNC_MASTER
//      left at the default waits for no slave (CommitLog.handleHA), so
//      replication counts only with inSyncReplicas >= 2.
//   3. otherwise (ASYNC_FLUSH and no replication wait): as soon as the
//      message is in the master's page cache; the flush follows within
//      flushIntervalCommitLog. With transientStorePoolEnable=true it is in
//      the broker's own memory until committed, so even a broker process
//      crash can lose it.
//
// Rule 1 or rule 2 makes a broker durable; rule 3 is not durable. Brokers
// whose replication another component decides (enableDLegerCommitLog,
// enableControllerMode, enableSlaveActingMaster) are judged only by rule
// 1, and by DLedger's settings not at all: unknown unless rule 1 holds and
// the commit log is not DLedger's. A broker that does not show its
// configuration (refused, unreachable, a setting missing) is unknown.
#ifndef OUTPOST_ROCKETMQ_BROKER_DURABILITY_H
#define OUTPOST_ROCKETMQ_BROKER_DURABILITY_H

#include <chrono>
#include <string>
#include <vector>

#include "outpost/status.h"
#include "rocketmq/broker_config.h"
#include "rocketmq/client_security.h"

namespace outpost::rocketmq {

enum class Durability { kDurable, kNotDurable, kUnknown };

// "durable", "not_durable", "unknown".
const char* durability_name(Durability durability);

struct BrokerDurability {
    Durability verdict = Durability::kUnknown;
    // As the broker reported them; empty when not read.
    std::string flush_disk_type;   // flushDiskType: SYNC_FLUSH, ASYNC_FLUSH
    std::string broker_role;       // brokerRole: ASYNC_MASTER, SYNC_MASTER, SLAVE
    std::string in_sync_replicas;  // inSyncReplicas
    // One sentence: which rule above decided, or why nothing could be read.
    std::string reason;
};

// Applies the rules above to `settings`.
BrokerDurability judge_broker_durability(const BrokerSettings& settings);

// Unknown, with `why` (a failed query_broker_settings) as the reason.
BrokerDurability unknown_durability(const Status& why);

struct BrokerReport {
    std::string broker_name;
    std::string address;  // the master's "ip:port"
    BrokerDurability durability;
};

// One line for logs and reports: "broker NAME (ADDRESS): flushDiskType=..
// brokerRole=.. inSyncReplicas=..: durable|not durable|unknown: REASON".
std::string describe_broker_report(const BrokerReport& report);

// The master of every broker that holds one of `topics` (by the first of
// `name_servers` that answers; a topic unknown to them counts the brokers
// of the template topic TBW102, which would create it), each with its
// configuration read and judged. Sorted by broker name. Success with an
// entry per broker, unknown ones included. Fails, with the last lookup's
// error, when no name server answered a route lookup; kInvalidArgument
// when `name_servers` or `topics` is empty. Each request is bounded by
// `timeout`; `security` as for a Producer.
Result<std::vector<BrokerReport>> survey_broker_durability(
    const std::vector<std::string>& name_servers, const std::vector<std::string>& topics,
    const ClientSecurity& security, std::chrono::milliseconds timeout);

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_BROKER_DURABILITY_H
