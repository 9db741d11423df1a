// Status and Result: the error values every fallible call returns.
#include "outpost/status.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

using namespace outpost;

namespace {

const std::vector<StatusCode> kAllCodes = {
    StatusCode::kOk,
    StatusCode::kInvalidArgument,
    StatusCode::kNotFound,
    StatusCode::kStoreFull,
    StatusCode::kDiskFull,
    StatusCode::kIoError,
    StatusCode::kBusy,
    StatusCode::kCorruption,
    StatusCode::kOutcomeUnknown,
    StatusCode::kVersionTooNew,
    StatusCode::kFenced,
    StatusCode::kUnavailable,
    StatusCode::kRejected,
    StatusCode::kClosed,
    StatusCode::kTimeout,
    StatusCode::kInternal,
};

}  // namespace

TEST_CASE("a default or ok() status is OK, with code kOk and no message") {
    for (const Status& status : {Status(), Status::ok()}) {
        CHECK(status.is_ok());
        CHECK(static_cast<bool>(status));
        CHECK(status.code() == StatusCode::kOk);
        CHECK(status.message().empty());
        CHECK(status.to_string() == "ok");
    }
}

TEST_CASE("an error keeps its code and message, and prints as name: message") {
    Status status = Status::error(StatusCode::kStoreFull, "quota of 1048576 bytes reached");
    CHECK_FALSE(status.is_ok());
    CHECK_FALSE(static_cast<bool>(status));
    CHECK(status.code() == StatusCode::kStoreFull);
    CHECK(status.message() == "quota of 1048576 bytes reached");
    CHECK(status.to_string() == "store_full: quota of 1048576 bytes reached");
}

TEST_CASE("an error made with code kOk is simply OK") {
    Status status = Status::error(StatusCode::kOk, "ignored");
    CHECK(status.is_ok());
    CHECK(status.message().empty());
}

TEST_CASE("every code has its own stable lower-case name") {
    std::set<std::string> names;
    for (StatusCode code : kAllCodes) {
        const std::string name = status_code_name(code);
        INFO("code " << static_cast<int>(code) << " is named '" << name << "'");
        CHECK(name != "unknown");
        CHECK_FALSE(name.empty());
        for (char c : name) CHECK(((c >= 'a' && c <= 'z') || c == '_'));
        names.insert(name);
    }
    CHECK(names.size() == kAllCodes.size());
    // Names are read by scripts and the evidence log: they must not drift.
    CHECK(std::string(status_code_name(StatusCode::kOutcomeUnknown)) == "outcome_unknown");
    CHECK(std::string(status_code_name(StatusCode::kIoError)) == "io_error");
    CHECK(std::string(status_code_name(StatusCode::kVersionTooNew)) == "version_too_new");
    CHECK(std::string(status_code_name(static_cast<StatusCode>(999))) == "unknown");
}

TEST_CASE("with_context prefixes the message of an error and leaves OK alone") {
    Status error = Status::error(StatusCode::kIoError, "fsync failed");
    Status wrapped = error.with_context("opening store /data/o.db");
    CHECK(wrapped.code() == StatusCode::kIoError);
    CHECK(wrapped.message() == "opening store /data/o.db: fsync failed");
    CHECK(error.message() == "fsync failed");  // the original is unchanged
    CHECK(Status::ok().with_context("anything").is_ok());
    CHECK(Status::ok().with_context("anything").message().empty());
}

TEST_CASE("a copied error has the same code and message as the original") {
    Status original = Status::error(StatusCode::kFenced, "epoch 3 superseded by 4");
    Status copy = original;
    CHECK(copy.code() == original.code());
    CHECK(copy.message() == original.message());
    original = Status::ok();
    CHECK(copy.code() == StatusCode::kFenced);  // copies are independent values
}

TEST_CASE("a Result holds a value and an OK status, or an error and no value") {
    Result<int> value = 42;
    CHECK(value.is_ok());
    CHECK(static_cast<bool>(value));
    CHECK(value.status().is_ok());
    CHECK(value.value() == 42);
    CHECK(*value == 42);

    Result<int> error = Status::error(StatusCode::kNotFound, "no event abc");
    CHECK_FALSE(error.is_ok());
    CHECK_FALSE(static_cast<bool>(error));
    CHECK(error.status().code() == StatusCode::kNotFound);
    CHECK(error.status().message() == "no event abc");
}

TEST_CASE("a Result's value can be read in place, changed and moved out") {
    Result<std::string> text = std::string("payload");
    CHECK(text->size() == 7);
    text->append("!");
    CHECK(*text == "payload!");
    std::string moved = std::move(text).value();
    CHECK(moved == "payload!");

    Result<std::vector<int>> numbers = std::vector<int>{1, 2, 3};
    numbers.value().push_back(4);
    CHECK(numbers->size() == 4);
}

TEST_CASE("a Result made from an OK status is an internal error, never a silent success") {
    // `if (!result) return result.status();` must not pass on an OK status
    // for a result that has no value.
    Result<int> empty = Status::ok();
    CHECK_FALSE(empty.is_ok());
    CHECK(empty.status().code() == StatusCode::kInternal);
}

TEST_CASE("ignore_error drops a status or result on purpose, with nothing else happening") {
    Status error = Status::error(StatusCode::kUnavailable, "broker down");
    error.ignore_error("the caller retries on its own schedule");
    CHECK(error.code() == StatusCode::kUnavailable);
    Result<int> result = 7;
    result.ignore_error("a test");
    CHECK(*result == 7);
}
