// The public C++ API throws nothing (outpost/status.h): each entry point
// runs its body through guard_api(), which turns what the body may throw
// into a Status. Resource failures, the expected ones, become
// kResourceExhausted: std::bad_alloc, and std::system_error from starting
// a thread or taking a lock. Anything else is a bug and becomes kInternal
// naming the exception. Reporting allocates nothing when memory is gone.
#ifndef OUTPOST_COMMON_API_GUARD_H
#define OUTPOST_COMMON_API_GUARD_H

#include <exception>
#include <new>
#include <system_error>

#include "outpost/status.h"

namespace outpost {

// kResourceExhausted "<what>: out of memory; nothing was done", made when
// the library is loaded, so returning it needs no memory.
const Status& out_of_memory_status();
// The Status for an exception caught at the API boundary: `what` names the
// call ("Publisher::start"). Never throws: falls back to
// out_of_memory_status().
Status status_of_exception(const char* what, std::exception_ptr caught) noexcept;

// Runs `body` (returning Status or Result<T>); nothing it throws escapes.
template <typename Body>
auto guard_api(const char* what, Body&& body) noexcept -> decltype(body()) {
    try {
        return body();
    } catch (...) {
        return status_of_exception(what, std::current_exception());
    }
}

}  // namespace outpost

#endif  // OUTPOST_COMMON_API_GUARD_H
