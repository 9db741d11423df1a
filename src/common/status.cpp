#include "outpost/status.h"

namespace outpost {

const char* status_code_name(StatusCode code) {
    switch (code) {
        case StatusCode::kOk: return "ok";
        case StatusCode::kInvalidArgument: return "invalid_argument";
        case StatusCode::kNotFound: return "not_found";
        case StatusCode::kStoreFull: return "store_full";
        case StatusCode::kDiskFull: return "disk_full";
        case StatusCode::kIoError: return "io_error";
        case StatusCode::kBusy: return "busy";
        case StatusCode::kCorruption: return "corruption";
        case StatusCode::kOutcomeUnknown: return "outcome_unknown";
        case StatusCode::kVersionTooNew: return "version_too_new";
        case StatusCode::kFenced: return "fenced";
        case StatusCode::kUnavailable: return "unavailable";
        case StatusCode::kRejected: return "rejected";
        case StatusCode::kClosed: return "closed";
        case StatusCode::kTimeout: return "timeout";
        case StatusCode::kInternal: return "internal";
        case StatusCode::kPermissionDenied: return "permission_denied";
        case StatusCode::kResourceExhausted: return "resource_exhausted";
    }
    return "unknown";
}

Status Status::error(StatusCode code, std::string message) {
    Status status;
    if (code == StatusCode::kOk) return status;
    status.rep_ = std::make_shared<const Rep>(Rep{code, std::move(message)});
    return status;
}

const std::string& Status::message() const {
    static const std::string kEmpty;
    return rep_ ? rep_->message : kEmpty;
}

std::string Status::to_string() const {
    if (is_ok()) return "ok";
    return std::string(status_code_name(rep_->code)) + ": " + rep_->message;
}

Status Status::with_context(const std::string& context) const {
    if (is_ok()) return *this;
    return error(rep_->code, context + ": " + rep_->message);
}

}  // namespace outpost
