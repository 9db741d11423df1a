// Turns one request line into one answer: parses and checks the request,
// runs it against the store or the status provider, and maps every failure
// to a wire error code. Thread-safe (the store is; the handler keeps no
// state of its own).
#ifndef OUTPOST_INGEST_REQUEST_HANDLER_H
#define OUTPOST_INGEST_REQUEST_HANDLER_H

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "ingest/ingest_server.h"
#include "outpost/store.h"

namespace outpost::ingest {

struct HandledRequest {
    nlohmann::json answer;
    bool alarm_recorded = false;  // a raise_alarm that answered ok
};

class RequestHandler final {
  public:
    // `store` is borrowed for the handler's life. `ingest_stats` fills the
    // answer to "status" when `status` is empty.
    RequestHandler(Store& store, StatusProvider status, std::function<ServerStats()> ingest_stats)
        : store_(store), status_(std::move(status)), ingest_stats_(std::move(ingest_stats)) {}

    // `line` is one request without its newline. Never throws.
    HandledRequest handle(const std::string& line) const;

  private:
    HandledRequest dispatch(const nlohmann::json& request) const;
    HandledRequest raise_alarm(const nlohmann::json& request) const;
    nlohmann::json status_answer() const;

    Store& store_;
    const StatusProvider status_;
    const std::function<ServerStats()> ingest_stats_;
};

}  // namespace outpost::ingest

#endif  // OUTPOST_INGEST_REQUEST_HANDLER_H
