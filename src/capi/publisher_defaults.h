// The C publisher options' defaults: the C++ PublisherOptions defaults, in
// every build (also without MQTT, where start then says OUTPOST_NOT_BUILT).
#ifndef OUTPOST_CAPI_PUBLISHER_DEFAULTS_H
#define OUTPOST_CAPI_PUBLISHER_DEFAULTS_H

#include <cstddef>

#include "outpost/outpost_c.h"

namespace outpost::capi {

// The smallest outpost_publisher_options accepted: struct_size and the
// fields every version has had, up to max_attempts. The receipt fields came
// later; a caller without them gets their defaults.
constexpr size_t kPublisherOptionsFirstSize =
    offsetof(outpost_publisher_options, max_attempts) + sizeof(int);

// This library's defaults, struct_size included. broker_uri points into a
// string kept for the process's life; it is NULL when building the defaults
// ran out of memory, which outpost_publisher_start refuses with a clear
// message.
outpost_publisher_options publisher_option_defaults() noexcept;

}  // namespace outpost::capi

#endif  // OUTPOST_CAPI_PUBLISHER_DEFAULTS_H
