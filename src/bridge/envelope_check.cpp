#include "bridge/envelope_check.h"

#include <cstddef>
#include <optional>
#include <vector>

#include "bridge/mqtt/topic_filter.h"
#include "common/envelope_document.h"
#include "common/strict_json.h"
#include "common/text_checks.h"

namespace outpost::bridge {
namespace {

using nlohmann::json;

Rejection reject(QuarantineReason reason, std::string detail) {
    return Rejection{reason, std::move(detail)};
}

// Every refusal of the strict parse is malformed_json but depth: a repeated
// key or a byte-order mark makes the bytes ambiguous, not merely unusual.
Rejection rejection_of(const JsonRefusal& refusal) {
    if (refusal.kind == JsonRefusal::Kind::kTooDeep) {
        return reject(QuarantineReason::kJsonTooDeep, refusal.detail);
    }
    return reject(QuarantineReason::kMalformedJson, "payload " + refusal.detail);
}

// The topic level `index`, or nullopt when the topic is shorter.
std::optional<std::string> level(const std::vector<std::string>& levels, int index) {
    if (index < 0 || static_cast<std::size_t>(index) >= levels.size()) return std::nullopt;
    return levels[static_cast<std::size_t>(index)];
}

std::optional<Rejection> check_identity(const InboundMessage& message,
                                        const CheckedEnvelope& envelope,
                                        const IdentityConfig& identity) {
    const std::vector<std::string> levels = topic_levels(message.topic);
    const std::optional<std::string> gateway = level(levels, identity.gateway_level);
    if (!gateway || *gateway != envelope.gateway_id) {
        return reject(QuarantineReason::kGatewayMismatch,
                      "envelope gatewayId '" + envelope.gateway_id + "' is not topic level " +
                          std::to_string(identity.gateway_level) + " of " + message.topic);
    }
    if (identity.device_level >= 0) {
        const std::optional<std::string> device = level(levels, identity.device_level);
        if (!device || *device != envelope.device_id) {
            return reject(QuarantineReason::kDeviceMismatch,
                          "envelope deviceId '" + envelope.device_id + "' is not topic level " +
                              std::to_string(identity.device_level) + " of " + message.topic);
        }
    }
    return std::nullopt;
}

}  // namespace

std::variant<CheckedEnvelope, Rejection> check_inbound(const InboundMessage& message,
                                                       const LimitsConfig& limits,
                                                       const IdentityConfig& identity) {
    if (message.payload.size() > limits.max_payload_bytes) {
        return reject(QuarantineReason::kPayloadTooLarge,
                      std::to_string(message.payload.size()) + " bytes; at most " +
                          std::to_string(limits.max_payload_bytes) + " accepted");
    }
    if (!is_valid_utf8(message.payload)) {
        return reject(QuarantineReason::kInvalidUtf8, "payload is not well-formed UTF-8");
    }
    std::variant<json, JsonRefusal> parsed =
        parse_strict_json(message.payload, limits.max_json_depth);
    if (const auto* refusal = std::get_if<JsonRefusal>(&parsed)) return rejection_of(*refusal);
    json& document = std::get<json>(parsed);
    if (std::optional<std::string> problem = envelope::check_envelope(document)) {
        Rejection rejection = reject(QuarantineReason::kSchemaViolation, *problem);
        auto id = document.is_object() ? document.find("eventId") : document.end();
        if (id != document.end() && id->is_string() &&
            is_lowercase_uuid_v7(id->get<std::string>())) {
            rejection.event_id = id->get<std::string>();
        }
        return rejection;
    }

    CheckedEnvelope envelope;
    // The contract check guarantees these are strings.
    envelope.event_id = document["eventId"].get<std::string>();
    envelope.event_type = document["eventType"].get<std::string>();
    envelope.gateway_id = document["gatewayId"].get<std::string>();
    envelope.device_id = document["deviceId"].get<std::string>();
    envelope.document = std::move(document);
    if (std::optional<Rejection> rejection = check_identity(message, envelope, identity)) {
        rejection->event_id = envelope.event_id;
        return *rejection;
    }
    return envelope;
}

}  // namespace outpost::bridge
