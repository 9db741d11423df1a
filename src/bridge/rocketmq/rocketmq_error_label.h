// How the bridge labels a failed RocketMQ send in its figures (the status
// line's "rocketmq_errors" and outpost_bridge_rocketmq_errors_total): by the
// response code RocketMQ answered with, which is what operators look up in
// RocketMQ's documentation and broker logs, and apart from it the failures
// that got no answer at all.
//
//   RocketMQ answered an error   code="16"    name="NO_PERMISSION"
//                                (name from rocketmq::response_code_name,
//                                the one table of code names)
//   an answer with a code this   code="other" name="UNKNOWN_CODE"
//   client does not know         (folded into one series: bounded cardinality)
//   no answer (transport) or     code="none"  name=the StatusCode name:
//   nothing sent                              unavailable (connection refused,
//                                             closed, TLS handshake failed),
//                                             timeout, permission_denied (TLS
//                                             refused the server certificate),
//                                             invalid_argument, ...
// The key "<code>:<name>" ("16:NO_PERMISSION", "none:timeout") is what the
// status line and the session processes' figures carry.
#ifndef OUTPOST_BRIDGE_ROCKETMQ_ROCKETMQ_ERROR_LABEL_H
#define OUTPOST_BRIDGE_ROCKETMQ_ROCKETMQ_ERROR_LABEL_H

#include <cstdint>
#include <optional>
#include <string>

#include "outpost/status.h"

namespace outpost::bridge {

struct RocketMqErrorLabel {
    std::string code;  // decimal response code, "other" or "none"
    std::string name;  // upstream code name, or the StatusCode name for "none"

    // "<code>:<name>".
    std::string key() const { return code + ":" + name; }
    // The label a key names; a key without ':' (only from a mismatched
    // build) keeps it whole as the name, with code "none".
    static RocketMqErrorLabel from_key(const std::string& key);
};

// The label of a failed send: `response_code` as MessageSink::send reports
// it, `failure` the send's error.
RocketMqErrorLabel rocketmq_error_label(StatusCode failure,
                                        std::optional<std::int32_t> response_code);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_ROCKETMQ_ROCKETMQ_ERROR_LABEL_H
