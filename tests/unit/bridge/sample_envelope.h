// Envelopes for the bridge's unit and integration tests, built by the
// gateway's own builder (store/envelope.h), so they are shaped exactly like
// what gateways publish: one definition of the envelope, not a copy. Link
// store_dep.
#ifndef OUTPOST_TESTS_BRIDGE_SAMPLE_ENVELOPE_H
#define OUTPOST_TESTS_BRIDGE_SAMPLE_ENVELOPE_H

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/uuid.h"
#include "outpost/alarm.h"
#include "store/envelope.h"

namespace outpost::testing {

inline std::string new_event_id() {
    return make_uuid_v7(std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count());
}

// An "overheat" alarm of `device_id` at 97.5 C, recorded 12.345 s after
// 1970 (a gateway before NTP), as the store builds it.
inline std::string sample_envelope_text(const std::string& gateway_id, const std::string& device_id,
                                        std::int64_t seq, const std::string& event_id,
                                        const std::string& severity = "critical") {
    Alarm alarm;
    alarm.device_id = device_id;
    alarm.alarm_type = "overheat";
    alarm.severity = parse_severity(severity).value_or(Severity::kCritical);
    alarm.value = 97.5;
    alarm.unit = "C";
    store::EnvelopeContext context;
    context.event_id = event_id;
    context.gateway_id = gateway_id;
    context.seq = seq;
    context.wall_ms = 12'345;
    context.boot_id = "6f1c0d2e-1111-4a4a-9b9b-000000000001";
    context.uptime_ms = 12'345;
    return store::alarm_envelope(alarm, context);
}

// The same, parsed, for tests that change a field.
inline nlohmann::json sample_envelope(const std::string& gateway_id, const std::string& device_id,
                                      std::int64_t seq, const std::string& event_id,
                                      const std::string& severity = "critical") {
    return nlohmann::json::parse(
        sample_envelope_text(gateway_id, device_id, seq, event_id, severity));
}

inline std::string alarm_topic(const std::string& gateway_id, const std::string& device_id) {
    return "outpost/" + gateway_id + "/alarm/" + device_id;
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_BRIDGE_SAMPLE_ENVELOPE_H
