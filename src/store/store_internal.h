// How the parts built in this project reach the engine behind a public
// outpost::Store: the publisher (it reads and marks the outbox under its
// lease), the proof toolkit, the store's tests and the benchmarks. The public
// API has no such door: operators use outpost/store_admin.h.
//
// Not installed, and visible only to targets whose meson.build declares
// store_internal_dep (see the include rule in the top-level meson.build).
#ifndef OUTPOST_STORE_STORE_INTERNAL_H
#define OUTPOST_STORE_STORE_INTERNAL_H

#include "outpost/store.h"
#include "store/store_core.h"

namespace outpost::store {

// The one friend of Store: hands out its engine.
class StoreAccess final {
  public:
    static StoreCore& core(Store& store) { return *store.core_; }
};

// The engine of `store`; borrowed for as long as `store` lives.
inline StoreCore& core_of(Store& store) {
    return StoreAccess::core(store);
}

}  // namespace outpost::store

#endif  // OUTPOST_STORE_STORE_INTERNAL_H
