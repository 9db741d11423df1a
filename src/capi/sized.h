// The C API's versioned structs (outpost_c.h, "Versioned structs"): a
// caller's struct may be smaller (built against an older header) or larger
// (a newer header) than this library's. Fields are only ever added at the
// end, so the common prefix means the same on both sides.
#ifndef OUTPOST_CAPI_SIZED_H
#define OUTPOST_CAPI_SIZED_H

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include "capi/error.h"

namespace outpost::capi {

// Writes `defaults` into the first `size` bytes of the caller's struct at
// `caller` (zero past this library's fields) and sets its struct_size to
// `size`. Never writes past `size`. A null struct, or one too small to hold
// struct_size, is left alone (the reading call then refuses it).
template <typename T>
void init_sized(T* caller, size_t size, const T& defaults) noexcept {
    if (caller == nullptr || size < sizeof(size_t)) return;
    auto* bytes = reinterpret_cast<unsigned char*>(caller);
    std::memcpy(bytes, &defaults, std::min(size, sizeof(T)));
    if (size > sizeof(T)) std::memset(bytes + sizeof(T), 0, size - sizeof(T));
    std::memcpy(bytes, &size, sizeof size);  // struct_size, the first field
}

// Reads the caller's struct at `caller` over `out`, which holds this
// library's defaults: the fields the caller's version has replace them,
// the others stay. Refuses (OUTPOST_INVALID_ARGUMENT, naming `what`) a
// struct_size below `first_version_size`, the size the struct had when it
// was first versioned (the *_init call is missing), and a larger struct
// whose fields unknown to this library are not all zero (an option it
// cannot honour: better refused than ignored).
template <typename T>
outpost_code read_sized(const T* caller, size_t first_version_size, T& out, const char* what,
                        outpost_error* error) {
    size_t size = 0;
    std::memcpy(&size, caller, sizeof size);
    if (size < first_version_size) {
        return fail(error, OUTPOST_INVALID_ARGUMENT,
                    (std::string(what) + ": struct_size is " + std::to_string(size) +
                     ", smaller than any version of the struct: set it with its *_init call")
                        .c_str());
    }
    const auto* bytes = reinterpret_cast<const unsigned char*>(caller);
    for (size_t at = sizeof(T); at < size; ++at) {
        if (bytes[at] != 0) {
            return fail(error, OUTPOST_INVALID_ARGUMENT,
                        (std::string(what) + ": sets a field at byte " + std::to_string(at) +
                         " that this version of liboutpost does not know (built against a newer "
                         "outpost_c.h): leave it at its default or upgrade the library")
                            .c_str());
        }
    }
    std::memcpy(&out, caller, std::min(size, sizeof(T)));
    out.struct_size = sizeof(T);
    return OUTPOST_OK;
}

// Copies this library's filled `value` into the caller's struct of `size`
// bytes: the common prefix, and zeros for fields this library does not know.
template <typename T>
void write_sized(const T& value, T* caller, size_t size) noexcept {
    auto* bytes = reinterpret_cast<unsigned char*>(caller);
    std::memcpy(bytes, &value, std::min(size, sizeof(T)));
    if (size > sizeof(T)) std::memset(bytes + sizeof(T), 0, size - sizeof(T));
}

// A struct the library fills for the caller: the call fills `value`, and
// the destructor copies it into the caller's struct of `size` bytes (null:
// nothing), so that every return path, errors included (value then stays
// zero), writes exactly the caller's size and never more.
template <typename T>
class SizedOutput final {
  public:
    SizedOutput(T* caller, size_t size) : caller_(caller), size_(size) {}
    ~SizedOutput() {
        if (caller_ != nullptr) write_sized(value, caller_, size_);
    }
    SizedOutput(const SizedOutput&) = delete;
    SizedOutput& operator=(const SizedOutput&) = delete;

    T value{};

  private:
    T* const caller_;
    const size_t size_;
};

}  // namespace outpost::capi

#endif  // OUTPOST_CAPI_SIZED_H
