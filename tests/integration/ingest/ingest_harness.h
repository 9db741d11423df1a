// A real store file and a real ingestion server on a socket in a fresh
// directory, plus small helpers for speaking the line protocol.
#ifndef OUTPOST_TESTS_INGEST_HARNESS_H
#define OUTPOST_TESTS_INGEST_HARNESS_H

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "ingest/client.h"
#include "ingest/ingest_server.h"
#include "store_fixture.h"
#include "temp_dir.h"

namespace outpost::testing {

// Generous: a shared 2-core box under load. Only a bound against hangs.
constexpr std::chrono::milliseconds kAnswerTimeout{30000};

struct IngestHarness {
    explicit IngestHarness(ingest::ServerOptions options = {}) {
        db_path = dir.file("store.db");
        store = open_store(db_path, test_options());
        options.socket_path = dir.file("outpostd.sock");
        socket_path = options.socket_path;
        auto started = ingest::Server::start(*store, options);
        if (!started) throw std::runtime_error("start: " + started.status().to_string());
        server = std::move(*started);
    }

    std::unique_ptr<ingest::Client> connect() const {
        auto client = ingest::Client::connect(socket_path);
        if (!client) throw std::runtime_error("connect: " + client.status().to_string());
        return std::move(*client);
    }

    TempDir dir;
    std::string db_path;
    std::string socket_path;
    std::unique_ptr<Store> store;
    std::unique_ptr<ingest::Server> server;
};

inline nlohmann::json call(ingest::Client& client, const nlohmann::json& request) {
    auto answer = client.call(request, kAnswerTimeout);
    if (!answer) throw std::runtime_error("call: " + answer.status().to_string());
    return *answer;
}

// Sends raw bytes as one line; returns the answer parsed.
inline nlohmann::json send_raw(ingest::Client& client, const std::string& line) {
    auto answer = client.exchange(line, kAnswerTimeout);
    if (!answer) throw std::runtime_error("exchange: " + answer.status().to_string());
    return nlohmann::json::parse(*answer);
}

inline nlohmann::json alarm_request(const std::string& device, const std::string& key = "") {
    nlohmann::json alarm = {{"deviceId", device},
                            {"alarmType", "OVER_TEMPERATURE"},
                            {"severity", "critical"},
                            {"value", 97.5},
                            {"unit", "degC"},
                            {"text", "bearing temperature above limit"}};
    if (!key.empty()) alarm["idempotencyKey"] = key;
    return {{"op", "raise_alarm"}, {"alarm", alarm}};
}

inline std::string error_code(const nlohmann::json& answer) {
    if (answer.value("ok", true)) return "";
    return answer["error"].value("code", "");
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_INGEST_HARNESS_H
