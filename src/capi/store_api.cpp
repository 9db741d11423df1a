// The C API's store handle: options, open, close, free, stats.
#include <cstring>
#include <string>

#include "capi/error.h"
#include "capi/handles.h"
#include "capi/sized.h"

namespace outpost::capi {

static_assert(OUTPOST_MIN_QUOTA_BYTES == StoreOptions::kMinQuotaBytes,
              "outpost_c.h must state the C++ minimum quota");

outpost_code check_open(SharedStore& shared, outpost_error* error) {
    std::lock_guard<std::mutex> lock(shared.mutex);
    if (shared.closed) return fail(error, OUTPOST_CLOSED, "the store handle was closed");
    return OUTPOST_OK;
}

}  // namespace outpost::capi

using namespace outpost;
using namespace outpost::capi;

namespace {

// outpost_store_options as first versioned: every field up to max_event_bytes.
constexpr size_t kStoreOptionsFirstSize =
    offsetof(outpost_store_options, max_event_bytes) + sizeof(uint32_t);

outpost_store_options store_option_defaults() {
    const StoreOptions defaults;
    outpost_store_options options{};
    options.struct_size = sizeof options;
    options.gateway_id = nullptr;
    options.quota_bytes = defaults.quota_bytes;
    options.sent_retention_ms = static_cast<uint32_t>(defaults.sent_retention.count());
    options.max_event_bytes = defaults.max_event_bytes;
    return options;
}

}  // namespace

extern "C" {

void outpost_store_options_init_sized(outpost_store_options* options, size_t struct_size) {
    init_sized(options, struct_size, store_option_defaults());
}

outpost_code outpost_store_open(const char* path, const outpost_store_options* options,
                                outpost_store** store_out, outpost_error* error) {
    if (store_out != nullptr) *store_out = nullptr;
    return guarded(error, [&] {
        if (path == nullptr || options == nullptr || store_out == nullptr) {
            return fail(error, OUTPOST_INVALID_ARGUMENT,
                        "outpost_store_open: path, options and store_out must not be NULL");
        }
        outpost_store_options given = store_option_defaults();
        if (read_sized(options, kStoreOptionsFirstSize, given, "outpost_store_open: options",
                       error) != OUTPOST_OK) {
            return OUTPOST_INVALID_ARGUMENT;
        }
        StoreOptions store_options;
        store_options.gateway_id = given.gateway_id ? given.gateway_id : "";
        store_options.quota_bytes = given.quota_bytes;
        store_options.sent_retention = std::chrono::milliseconds(given.sent_retention_ms);
        store_options.max_event_bytes = given.max_event_bytes;
        auto opened = Store::open(path, store_options);
        if (!opened) return report(error, opened.status());
        auto handle = std::make_unique<outpost_store>();
        handle->shared = std::make_shared<SharedStore>(std::move(*opened));
        *store_out = handle.release();
        return succeed(error);
    });
}

outpost_code outpost_store_close(outpost_store* store, outpost_error* error) {
    return guarded(error, [&] {
        if (store == nullptr) {
            return fail(error, OUTPOST_INVALID_ARGUMENT, "outpost_store_close: store is NULL");
        }
        SharedStore& shared = *store->shared;
        std::lock_guard<std::mutex> lock(shared.mutex);
        if (shared.closed) {
            return fail(error, OUTPOST_CLOSED, "outpost_store_close: the store was already closed");
        }
        if (shared.running_publishers > 0) {
            return fail(error, OUTPOST_BUSY,
                        "outpost_store_close: a publisher still runs on this store; "
                        "stop it first (outpost_publisher_stop)");
        }
        shared.closed = true;
        return report(error, shared.store->close());
    });
}

void outpost_store_free(outpost_store* store) {
    // The last owner's Store destructor closes the database; it reports
    // nothing and throws nothing.
    delete store;
}

outpost_code outpost_store_get_stats_sized(outpost_store* store, outpost_store_stats* caller_stats,
                                           size_t struct_size, outpost_error* error) {
    SizedOutput<outpost_store_stats> output(caller_stats, struct_size);
    outpost_store_stats* stats = &output.value;
    return guarded(error, [&] {
        if (store == nullptr || caller_stats == nullptr) {
            return fail(error, OUTPOST_INVALID_ARGUMENT,
                        "outpost_store_get_stats: store and stats must not be NULL");
        }
        if (check_open(*store->shared, error) != OUTPOST_OK) return OUTPOST_CLOSED;
        auto read = store->shared->store->stats();
        if (!read) return report(error, read.status());
        stats->pending = read->pending;
        stats->sent = read->sent;
        stats->dead = read->dead;
        stats->oldest_pending_id = read->oldest_pending_id;
        stats->database_bytes = read->database_bytes;
        stats->quota_bytes = read->quota_bytes;
        stats->commits = read->commits;
        stats->events_recorded = read->events_recorded;
        stats->purged_rows = read->purged_rows;
        stats->confirmed = read->confirmed;
        stats->oldest_pending_age_ms = read->oldest_pending_age_ms;
        return succeed(error);
    });
}

}  // extern "C"
