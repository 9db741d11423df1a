#include "common/api_guard.h"

#include <string>

namespace outpost {
namespace {

const Status kOutOfMemory = Status::error(
    StatusCode::kResourceExhausted, "out of memory: nothing was done; retry when memory is free");

}  // namespace

const Status& out_of_memory_status() {
    return kOutOfMemory;
}

Status status_of_exception(const char* what, std::exception_ptr caught) noexcept {
    try {
        try {
            std::rethrow_exception(caught);
        } catch (const std::bad_alloc&) {
            return kOutOfMemory;
        } catch (const std::system_error& error) {
            // Thread creation (EAGAIN: the process or user is at its thread
            // limit) and locks report this way.
            return Status::error(StatusCode::kResourceExhausted,
                                 std::string(what) + ": " + error.what() +
                                     "; nothing was done; retry when the system has room");
        } catch (const std::exception& error) {
            return Status::error(StatusCode::kInternal,
                                 std::string(what) + ": unexpected exception: " + error.what());
        } catch (...) {
            return Status::error(StatusCode::kInternal,
                                 std::string(what) + ": an unknown exception was caught");
        }
    } catch (...) {
        // Building the message ran out of memory.
        return kOutOfMemory;
    }
}

}  // namespace outpost
