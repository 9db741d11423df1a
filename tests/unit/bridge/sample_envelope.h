// Envelopes shaped exactly like the gateway's (src/store/envelope.cpp), for
// the bridge's unit and integration tests.
#ifndef OUTPOST_TESTS_BRIDGE_SAMPLE_ENVELOPE_H
#define OUTPOST_TESTS_BRIDGE_SAMPLE_ENVELOPE_H

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/uuid.h"

namespace outpost::testing {

inline std::string new_event_id() {
    return make_uuid_v7(std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count());
}

inline nlohmann::json sample_envelope(const std::string& gateway_id, const std::string& device_id,
                                      std::int64_t seq, const std::string& event_id,
                                      const std::string& severity = "critical") {
    return nlohmann::json{
        {"eventId", event_id},
        {"eventType", "ALARM_RAISED"},
        {"schemaVersion", 1},
        {"gatewayId", gateway_id},
        {"deviceId", device_id},
        {"seq", seq},
        {"aggregateType", "alarm"},
        {"aggregateId", device_id + "/overheat"},
        {"occurredAt", "1970-01-01T00:00:12.345Z"},
        {"bootId", "6f1c0d2e-1111-4a4a-9b9b-000000000001"},
        {"uptimeMs", 12345},
        {"payload",
         {{"alarmType", "overheat"}, {"severity", severity}, {"value", 97.5}, {"unit", "C"}}}};
}

inline std::string alarm_topic(const std::string& gateway_id, const std::string& device_id) {
    return "outpost/" + gateway_id + "/alarm/" + device_id;
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_BRIDGE_SAMPLE_ENVELOPE_H
