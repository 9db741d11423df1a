// What the C API's store handle holds. A publisher handle shares the store
// (std::shared_ptr), so freeing the store handle first is safe: the
// database closes when the last of the two is freed.
#ifndef OUTPOST_CAPI_HANDLES_H
#define OUTPOST_CAPI_HANDLES_H

#include <memory>
#include <mutex>
#include <string>

#include "outpost/outpost_c.h"
#include "outpost/store.h"

namespace outpost::capi {

struct SharedStore {
    explicit SharedStore(std::unique_ptr<Store> opened) : store(std::move(opened)) {}
    const std::unique_ptr<Store> store;  // never null; thread-safe itself
    std::mutex mutex;
    bool closed = false;         // guarded by mutex: outpost_store_close ran
    int running_publishers = 0;  // guarded by mutex: started and not stopped
};

// OUTPOST_CLOSED in `error` unless the store is open; OUTPOST_OK then.
outpost_code check_open(SharedStore& shared, outpost_error* error);

// A C string argument as text: a null pointer reads as "".
inline std::string text(const char* value) {
    return value ? value : "";
}

}  // namespace outpost::capi

struct outpost_store {
    std::shared_ptr<outpost::capi::SharedStore> shared;
};

#endif  // OUTPOST_CAPI_HANDLES_H
