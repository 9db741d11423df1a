// outpost_publisher_options_init: the C++ PublisherOptions defaults, in
// every build (also without MQTT, where start then says OUTPOST_NOT_BUILT).
#include <cstring>

#include "outpost/outpost_c.h"
#include "outpost/publisher_options.h"

extern "C" void outpost_publisher_options_init(outpost_publisher_options* options) {
    if (options == nullptr) return;
    std::memset(options, 0, sizeof *options);
    try {
        // Built once and kept: broker_uri points into it for the process's life.
        static const outpost::PublisherOptions kDefaults;
        options->broker_uri = kDefaults.broker_uri.c_str();
        options->tls_verify_server = kDefaults.tls.verify_server ? 1 : 0;
        options->keepalive_s = static_cast<uint32_t>(kDefaults.keepalive.count());
        options->connect_timeout_ms = static_cast<uint32_t>(kDefaults.connect_timeout.count());
        options->reconnect_max_ms = static_cast<uint32_t>(kDefaults.reconnect_max.count());
        options->max_in_flight = kDefaults.max_in_flight;
        options->max_attempts = kDefaults.max_attempts;
    } catch (...) {
        // Out of memory building the defaults: broker_uri stays NULL, which
        // outpost_publisher_start refuses with a clear message.
    }
}
