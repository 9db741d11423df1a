#include "bridge/quarantine_reason.h"

namespace outpost::bridge {

const char* quarantine_reason_name(QuarantineReason reason) {
    switch (reason) {
        case QuarantineReason::kPayloadTooLarge:
            return "payload_too_large";
        case QuarantineReason::kInvalidUtf8:
            return "invalid_utf8";
        case QuarantineReason::kMalformedJson:
            return "malformed_json";
        case QuarantineReason::kJsonTooDeep:
            return "json_too_deep";
        case QuarantineReason::kSchemaViolation:
            return "schema_violation";
        case QuarantineReason::kGatewayMismatch:
            return "gateway_mismatch";
        case QuarantineReason::kDeviceMismatch:
            return "device_mismatch";
        case QuarantineReason::kUnmappedTopic:
            return "unmapped_topic";
        case QuarantineReason::kRocketMqRejected:
            return "rocketmq_rejected";
    }
    return "unknown";
}

}  // namespace outpost::bridge
