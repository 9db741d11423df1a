// The telemetry every telemetry bench source sends: many sensors, small JSON
// values, as a gateway produces them. Header-only; bench programs only.
#ifndef OUTPOST_BENCH_SENSOR_TELEMETRY_H
#define OUTPOST_BENCH_SENSOR_TELEMETRY_H

#include <cstdint>
#include <string>

namespace outpost::bench {

constexpr int kSensors = 64;

// The telemetry key of message n ("sensor-<n mod 64>/value").
inline std::string sensor_key(uint64_t n) {
    return "sensor-" + std::to_string(n % kSensors) + "/value";
}

inline std::string sensor_payload(uint64_t n) {
    return "{\"v\":" + std::to_string(20.0 + static_cast<double>(n % 100) / 10) +
           ",\"n\":" + std::to_string(n) + "}";
}

}  // namespace outpost::bench

#endif  // OUTPOST_BENCH_SENSOR_TELEMETRY_H
