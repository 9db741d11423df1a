// A broker's running configuration, read over the remoting protocol
// (request 26, GET_BROKER_CONFIG, the request `mqadmin getBrokerConfig`
// makes). The broker answers with every setting of its BrokerConfig,
// NettyServerConfig, NettyClientConfig and MessageStoreConfig as the body:
// "key=value" lines, one per setting, no escaping.
#ifndef OUTPOST_ROCKETMQ_BROKER_CONFIG_H
#define OUTPOST_ROCKETMQ_BROKER_CONFIG_H

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "outpost/status.h"
#include "rocketmq/connection.h"

namespace outpost::rocketmq {

using BrokerSettings = std::map<std::string, std::string>;

// Parses the answer's body: each line "key=value" (split at the first '=',
// a trailing '\r' dropped); empty lines are skipped. Fails with
// kInvalidArgument, naming the line, for a line without '=' or with an
// empty key, and for a key given twice.
Result<BrokerSettings> parse_broker_settings(std::string_view body);

// Asks the broker behind `broker` for its configuration. Success: the
// parsed settings. Fails with kRejected when the broker answers with an
// error code (an ACL that denies the request, a broker that does not know
// it); *refused_code (if given) is then set to that code, and left as it
// was otherwise. kUnavailable / kTimeout / kPermissionDenied (TLS) as
// Connection::invoke; kInvalidArgument for an unparsable body.
Result<BrokerSettings> query_broker_settings(Connection& broker, std::chrono::milliseconds timeout,
                                             std::optional<std::int32_t>* refused_code = nullptr);

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_BROKER_CONFIG_H
