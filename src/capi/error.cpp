// Error codes and messages of the C API.
#include "capi/error.h"

#include <cstring>

namespace outpost::capi {

outpost_code succeed(outpost_error* error) noexcept {
    if (error != nullptr) {
        error->code = OUTPOST_OK;
        error->message[0] = '\0';
    }
    return OUTPOST_OK;
}

void copy_message(char* destination, size_t size, const char* message) noexcept {
    if (size == 0) return;
    size_t length = message == nullptr ? 0 : std::strlen(message);
    if (length >= size) {
        length = size - 1;
        // Never cut a UTF-8 character in two: back off over continuation bytes.
        while (length > 0 && (static_cast<unsigned char>(message[length]) & 0xC0) == 0x80) {
            --length;
        }
    }
    if (length > 0) std::memcpy(destination, message, length);
    destination[length] = '\0';
}

outpost_code fail(outpost_error* error, outpost_code code, const char* message) noexcept {
    if (error == nullptr) return code;
    error->code = code;
    copy_message(error->message, sizeof error->message, message);
    return code;
}

outpost_code report(outpost_error* error, const Status& status) noexcept {
    if (status.is_ok()) return succeed(error);
    return fail(error, code_of(status.code()), status.message().c_str());
}

outpost_code code_of(StatusCode code) noexcept {
    // The C enum mirrors StatusCode value for value (outpost_c.h).
    static_assert(static_cast<int>(StatusCode::kInvalidArgument) == OUTPOST_INVALID_ARGUMENT &&
                      static_cast<int>(StatusCode::kStoreFull) == OUTPOST_STORE_FULL &&
                      static_cast<int>(StatusCode::kOutcomeUnknown) == OUTPOST_OUTCOME_UNKNOWN &&
                      static_cast<int>(StatusCode::kClosed) == OUTPOST_CLOSED &&
                      static_cast<int>(StatusCode::kInternal) == OUTPOST_INTERNAL,
                  "outpost_code must mirror outpost::StatusCode");
    // The codes after kInternal have no C twin of the same value.
    switch (code) {
        case StatusCode::kPermissionDenied:
            return OUTPOST_REJECTED;  // refused, and retrying will not help
        case StatusCode::kResourceExhausted:
            return OUTPOST_NO_MEMORY;
        default:
            return static_cast<outpost_code>(code);
    }
}

}  // namespace outpost::capi

extern "C" const char* outpost_code_name(outpost_code code) {
    switch (code) {
        case OUTPOST_NO_MEMORY:
            return "no_memory";
        case OUTPOST_NOT_BUILT:
            return "not_built";
        default:
            break;
    }
    if (code < OUTPOST_OK || code > OUTPOST_INTERNAL) return "unknown";
    return outpost::status_code_name(static_cast<outpost::StatusCode>(code));
}
