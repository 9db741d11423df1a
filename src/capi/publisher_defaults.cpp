// outpost_publisher_options_init: the C++ PublisherOptions defaults, in
// every build (also without MQTT, where start then says OUTPOST_NOT_BUILT).
#include "capi/publisher_defaults.h"

#include "capi/sized.h"
#include "outpost/publisher_options.h"

namespace outpost::capi {

outpost_publisher_options publisher_option_defaults() noexcept {
    outpost_publisher_options options{};
    options.struct_size = sizeof options;
    try {
        // Built once and kept: broker_uri points into it for the process's life.
        static const PublisherOptions kDefaults;
        options.broker_uri = kDefaults.endpoint.uri.c_str();
        options.tls_verify_server = kDefaults.endpoint.tls.verify_server ? 1 : 0;
        options.keepalive_s = static_cast<uint32_t>(kDefaults.endpoint.keepalive.count());
        options.connect_timeout_ms =
            static_cast<uint32_t>(kDefaults.endpoint.connect_timeout.count());
        options.reconnect_max_ms = static_cast<uint32_t>(kDefaults.endpoint.reconnect_max.count());
        options.max_in_flight = kDefaults.max_in_flight;
        options.max_attempts = kDefaults.max_attempts;
        options.receipts = kDefaults.receipts ? 1 : 0;
        options.receipt_timeout_ms = static_cast<uint32_t>(kDefaults.receipt_timeout.count());
        options.max_unconfirmed = kDefaults.max_unconfirmed;
    } catch (...) {
        // Out of memory building the defaults: broker_uri stays NULL.
    }
    return options;
}

}  // namespace outpost::capi

extern "C" void outpost_publisher_options_init_sized(outpost_publisher_options* options,
                                                     size_t struct_size) {
    outpost::capi::init_sized(options, struct_size, outpost::capi::publisher_option_defaults());
}
