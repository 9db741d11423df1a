// How the C API reports: every entry point runs its body inside guarded(),
// which turns any exception (std::bad_alloc included) into a code, and fills
// the caller's outpost_error without allocating.
#ifndef OUTPOST_CAPI_ERROR_H
#define OUTPOST_CAPI_ERROR_H

#include <cstddef>
#include <exception>
#include <new>

#include "outpost/outpost_c.h"
#include "outpost/status.h"

namespace outpost::capi {

// Copies `message` (NULL reads as "") into `destination` of `size` bytes,
// NUL-terminated, truncated at a UTF-8 character boundary. No allocation.
void copy_message(char* destination, size_t size, const char* message) noexcept;
// Sets `error` (may be null) to OK with an empty message; returns OUTPOST_OK.
outpost_code succeed(outpost_error* error) noexcept;
// Sets `error` to `code` and `message` (truncated at a UTF-8 character
// boundary to fit); returns `code`.
outpost_code fail(outpost_error* error, outpost_code code, const char* message) noexcept;
// Reports `status` (OK or not) in `error`; returns its code.
outpost_code report(outpost_error* error, const Status& status) noexcept;

outpost_code code_of(StatusCode code) noexcept;

// Runs `body` (returning outpost_code); nothing it throws escapes.
template <typename Body>
outpost_code guarded(outpost_error* error, Body&& body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        return fail(error, OUTPOST_NO_MEMORY, "out of memory: nothing was done");
    } catch (const std::exception& exception) {
        return fail(error, OUTPOST_INTERNAL, exception.what());
    } catch (...) {
        return fail(error, OUTPOST_INTERNAL, "an unknown exception reached the C API");
    }
}

}  // namespace outpost::capi

#endif  // OUTPOST_CAPI_ERROR_H
