// outpost::Publisher: option checks and the facade over publish::PublisherImpl.
#include "outpost/publisher.h"

#include "common/api_guard.h"
#include "paho/endpoint_check.h"
#include "publish/publisher_impl.h"

namespace outpost {
namespace {

Status invalid(const std::string& message) {
    return Status::error(StatusCode::kInvalidArgument, "publisher options: " + message);
}

Status check_options(const PublisherOptions& options) {
    const std::string endpoint_problem = paho::endpoint_problem(options.endpoint);
    if (!endpoint_problem.empty()) return invalid(endpoint_problem);
    if (options.max_in_flight < 1) return invalid("max_in_flight must be at least 1");
    if (options.max_attempts < 1) return invalid("max_attempts must be at least 1");
    if (options.mark_batch < 1) return invalid("mark_batch must be at least 1");
    if (options.receipts) {
        if (options.receipt_timeout.count() <= 0)
            return invalid("receipt_timeout must be positive");
        if (options.receipt_timeout_max < options.receipt_timeout) {
            return invalid("receipt_timeout_max < receipt_timeout");
        }
        if (options.max_unconfirmed < options.max_in_flight) {
            return invalid("max_unconfirmed must be at least max_in_flight");
        }
    }
    using std::chrono::milliseconds;
    for (auto [name, value] :
         {std::pair<const char*, milliseconds>{"retry_initial", options.retry_initial},
          {"lease_retry", options.lease_retry},
          {"poll_interval", options.poll_interval},
          {"rescan_interval", options.rescan_interval},
          {"purge_interval", options.purge_interval}}) {
        if (value.count() <= 0) return invalid(std::string(name) + " must be positive");
    }
    if (options.retry_max < options.retry_initial) return invalid("retry_max < retry_initial");
    return Status::ok();
}

}  // namespace

Result<std::unique_ptr<Publisher>> Publisher::start(Store& store, const PublisherOptions& options) {
    return guard_api("Publisher::start", [&]() -> Result<std::unique_ptr<Publisher>> {
        Status valid = check_options(options);
        if (!valid) return valid;
        auto impl = std::make_unique<publish::PublisherImpl>(store, options, publish::make_paho_link);
        impl->launch();
        return std::unique_ptr<Publisher>(new Publisher(std::move(impl)));
    });
}

Publisher::Publisher(std::unique_ptr<publish::PublisherImpl> impl) : impl_(std::move(impl)) {}

Publisher::~Publisher() {
    impl_->stop(kDefaultStopTimeout)
        .ignore_error("a destructor has no one to tell; stop() first to hear the outcome");
}

Status Publisher::stop(std::chrono::milliseconds timeout) {
    return guard_api("Publisher::stop", [&]() -> Status {
        return impl_->stop(timeout);
    });
}

PublisherStatus Publisher::status() const {
    return impl_->status();
}

}  // namespace outpost
