// Errors as values. Every fallible call in Outpost returns a Status or a
// Result<T>; nothing throws across the public API. Both types are
// [[nodiscard]]: a caller reads the error, returns it, or drops it with
// ignore_error("why that is safe").
//
// A Status is cheap to copy when it is OK (no allocation). A failed Status
// carries a code the caller can branch on and a message meant for a human: it
// names what failed, on which object, and what the caller can do about it.
#ifndef OUTPOST_STATUS_H
#define OUTPOST_STATUS_H

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "outpost/export.h"

namespace outpost {

enum class StatusCode {
    kOk = 0,
    // The caller passed something malformed: fix the input, do not retry.
    kInvalidArgument,
    // The named object (event, file, key) does not exist.
    kNotFound,
    // The store's byte quota is reached even after purging SENT rows. Nothing
    // was written. Retry once the backlog drains or the quota grows.
    kStoreFull,
    // The file system is full (SQLITE_FULL / ENOSPC). Nothing was written.
    kDiskFull,
    // The storage device reported an I/O error. The store closed and reopened
    // its connection; the operation did not happen.
    kIoError,
    // The database or a lock is held by someone else for longer than allowed.
    kBusy,
    // The database file is damaged. It is never wiped silently; see
    // StoreOptions::corruption_policy.
    kCorruption,
    // COMMIT failed after SQLite may have written frames: the write may or may
    // not survive. Retry with the same idempotency key; that is always safe.
    kOutcomeUnknown,
    // The database was written by a newer Outpost (schema user_version higher
    // than this build knows). Refused rather than silently downgraded.
    kVersionTooNew,
    // A newer lease holder exists: this holder's update was refused.
    kFenced,
    // A remote service (broker, name server) cannot be reached right now.
    kUnavailable,
    // A remote service refused the request for a reason that retrying will not fix.
    kRejected,
    // The object was closed or is shutting down.
    kClosed,
    // A deadline passed before the operation finished.
    kTimeout,
    // A bug or an unexpected state; the message says where.
    kInternal,
    // A remote service refused who we are or what we may do (wrong access key
    // or secret, missing permission, a server certificate we do not trust):
    // neither the request's fault nor transient. Fix the configuration.
    kPermissionDenied,
    // The process ran out of memory or threads (a thread could not be
    // started). Nothing was done; retry later. Every public call reports
    // such a failure this way instead of throwing.
    kResourceExhausted,
};

// Returns a stable lower-case name for `code`, e.g. "store_full".
OUTPOST_API const char* status_code_name(StatusCode code);

class [[nodiscard]] OUTPOST_API Status final {
  public:
    Status() noexcept = default;

    static Status ok() { return Status(); }
    static Status error(StatusCode code, std::string message);

    bool is_ok() const { return rep_ == nullptr; }
    explicit operator bool() const { return is_ok(); }
    StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
    // The human-readable message; empty when OK.
    const std::string& message() const;
    // "store_full: quota of 1048576 bytes reached ..." or "ok".
    std::string to_string() const;

    // Returns a copy whose message is "`context`: <message>"; OK stays OK.
    Status with_context(const std::string& context) const;

    // Drops this status on purpose. Status is [[nodiscard]]: an error nobody
    // reads is a bug unless the caller says why losing it is safe. `reason`
    // is that explanation, for the reader (grep ignore_error); nothing is
    // logged.
    void ignore_error(const char* reason) const { static_cast<void>(reason); }

  private:
    struct Rep {
        StatusCode code;
        std::string message;
    };
    std::shared_ptr<const Rep> rep_;  // null means OK
};

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result final {
  public:
    Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose
    // An OK `status` without a value is a bug in the callee: it becomes
    // kInternal, so `if (!result) return result.status();` cannot pass a
    // missing value on as success.
    Result(Status status)  // NOLINT: implicit on purpose
        : status_(status.is_ok() ? Status::error(StatusCode::kInternal,
                                                 "a Result was made from an OK status, no value")
                                 : std::move(status)) {}

    bool is_ok() const { return value_.has_value(); }
    explicit operator bool() const { return is_ok(); }
    // OK when a value is present.
    const Status& status() const { return status_; }
    // Precondition: is_ok().
    const T& value() const& { return *value_; }
    T& value() & { return *value_; }
    T&& value() && { return std::move(*value_); }
    const T* operator->() const { return &*value_; }
    T* operator->() { return &*value_; }
    const T& operator*() const { return *value_; }
    T& operator*() { return *value_; }
    // As Status::ignore_error: drops the value or the error on purpose.
    void ignore_error(const char* reason) const { static_cast<void>(reason); }

  private:
    std::optional<T> value_;
    Status status_;
};

}  // namespace outpost

#endif  // OUTPOST_STATUS_H
