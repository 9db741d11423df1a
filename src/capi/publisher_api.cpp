// The C API's publisher handle over outpost::Publisher. It shares the store
// handle's SharedStore and counts itself there while it runs, so the store
// refuses to close under it (OUTPOST_BUSY) and stays open until it is freed.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "capi/error.h"
#include "capi/handles.h"
#include "capi/publisher_defaults.h"
#include "capi/sized.h"
#include "outpost/publisher.h"

using namespace outpost;
using namespace outpost::capi;

// Declared in this order so that the Publisher is destroyed before the
// store it borrows is released.
struct outpost_publisher {
    std::shared_ptr<SharedStore> store;
    std::unique_ptr<Publisher> publisher;
    std::mutex mutex;
    bool running = true;  // guarded by mutex
};

namespace {

PublisherOptions to_options(const outpost_publisher_options& options) {
    PublisherOptions result;
    result.endpoint.uri = text(options.broker_uri);
    result.endpoint.client_id = text(options.client_id);
    result.endpoint.username = text(options.username);
    result.endpoint.password = text(options.password);
    result.endpoint.tls.ca_file = text(options.tls_ca_file);
    result.endpoint.tls.cert_file = text(options.tls_cert_file);
    result.endpoint.tls.key_file = text(options.tls_key_file);
    result.endpoint.tls.key_password = text(options.tls_key_password);
    result.endpoint.tls.verify_server = options.tls_verify_server != 0;
    result.endpoint.keepalive = std::chrono::seconds(options.keepalive_s);
    result.endpoint.connect_timeout = std::chrono::milliseconds(options.connect_timeout_ms);
    result.endpoint.reconnect_max = std::chrono::milliseconds(options.reconnect_max_ms);
    // A cap below the default first step would be refused; the first step
    // follows the cap down instead.
    result.endpoint.reconnect_initial =
        std::min(result.endpoint.reconnect_initial, result.endpoint.reconnect_max);
    result.max_in_flight = options.max_in_flight;
    result.max_attempts = options.max_attempts;
    result.receipts = options.receipts != 0;
    result.receipt_timeout = std::chrono::milliseconds(options.receipt_timeout_ms);
    // As reconnect_initial above: a first timeout above the cap would be
    // refused; the cap follows it up instead.
    result.receipt_timeout_max = std::max(result.receipt_timeout_max, result.receipt_timeout);
    result.max_unconfirmed = options.max_unconfirmed;
    return result;
}

// Ends `handle`'s run once: the C++ stop, then the store's count (also if
// the stop throws: the Publisher destructor then finishes the stop).
Status stop_once(outpost_publisher& handle, std::chrono::milliseconds timeout) {
    std::lock_guard<std::mutex> lock(handle.mutex);
    if (!handle.running) return Status::ok();
    struct EndRun {
        outpost_publisher& handle;
        ~EndRun() {
            handle.running = false;
            std::lock_guard<std::mutex> store_lock(handle.store->mutex);
            handle.store->running_publishers--;
        }
    } end_run{handle};
    // The C++ stop completes even when it reports kTimeout.
    return handle.publisher->stop(timeout);
}

}  // namespace

extern "C" {

outpost_code outpost_publisher_start(outpost_store* store,
                                     const outpost_publisher_options* caller_options,
                                     outpost_publisher** publisher_out, outpost_error* error) {
    if (publisher_out != nullptr) *publisher_out = nullptr;
    return guarded(error, [&] {
        if (store == nullptr || caller_options == nullptr || publisher_out == nullptr) {
            return fail(
                error, OUTPOST_INVALID_ARGUMENT,
                "outpost_publisher_start: store, options and publisher_out must not be NULL");
        }
        outpost_publisher_options given = publisher_option_defaults();
        if (read_sized(caller_options, kPublisherOptionsFirstSize, given,
                       "outpost_publisher_start: options", error) != OUTPOST_OK) {
            return OUTPOST_INVALID_ARGUMENT;
        }
        const outpost_publisher_options* options = &given;
        if (options->broker_uri == nullptr) {
            return fail(error, OUTPOST_INVALID_ARGUMENT,
                        "outpost_publisher_start: broker_uri is NULL");
        }
        auto handle = std::make_unique<outpost_publisher>();
        handle->store = store->shared;
        SharedStore& shared = *handle->store;
        std::lock_guard<std::mutex> lock(shared.mutex);
        if (shared.closed) {
            return fail(error, OUTPOST_CLOSED, "outpost_publisher_start: the store was closed");
        }
        auto started = Publisher::start(*shared.store, to_options(*options));
        if (!started) return report(error, started.status());
        handle->publisher = std::move(*started);
        shared.running_publishers++;
        *publisher_out = handle.release();
        return succeed(error);
    });
}

outpost_code outpost_publisher_stop(outpost_publisher* publisher, uint32_t timeout_ms,
                                    outpost_error* error) {
    return guarded(error, [&] {
        if (publisher == nullptr) {
            return fail(error, OUTPOST_INVALID_ARGUMENT,
                        "outpost_publisher_stop: publisher is NULL");
        }
        return report(error, stop_once(*publisher, std::chrono::milliseconds(timeout_ms)));
    });
}

outpost_code outpost_publisher_get_status_sized(outpost_publisher* publisher,
                                                outpost_publisher_status* caller_status,
                                                size_t struct_size, outpost_error* error) {
    SizedOutput<outpost_publisher_status> output(caller_status, struct_size);
    outpost_publisher_status* status = &output.value;
    return guarded(error, [&] {
        if (publisher == nullptr || caller_status == nullptr) {
            return fail(error, OUTPOST_INVALID_ARGUMENT,
                        "outpost_publisher_get_status: publisher and status must not be NULL");
        }
        const PublisherStatus now = publisher->publisher->status();
        {
            std::lock_guard<std::mutex> lock(publisher->mutex);
            status->running = publisher->running ? 1 : 0;
        }
        status->lease_held = now.lease_held ? 1 : 0;
        status->connected = now.connected ? 1 : 0;
        status->backlog = now.backlog;
        status->in_flight = now.in_flight;
        status->published = now.published;
        status->sent = now.sent;
        status->refused = now.refused;
        status->dead = now.dead;
        status->reconnects = now.reconnects;
        status->connect_failures = now.connect_failures;
        copy_message(status->last_error, sizeof status->last_error, now.last_error.c_str());
        return succeed(error);
    });
}

void outpost_publisher_free(outpost_publisher* publisher) {
    if (publisher == nullptr) return;
    try {
        stop_once(*publisher, Publisher::kDefaultStopTimeout)
            .ignore_error("free has no one to tell; outpost_publisher_stop reports the outcome");
    } catch (...) {
        // The stop threw (out of memory): the Publisher destructor stops it.
    }
    delete publisher;
}

}  // extern "C"
