// A real store file and a real ingestion server on a socket in a fresh
// directory, plus small helpers for speaking the line protocol.
#ifndef OUTPOST_TESTS_INGEST_HARNESS_H
#define OUTPOST_TESTS_INGEST_HARNESS_H

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

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
    // Opens the store and, unless `start_now` is false, starts the server on
    // <dir>/outpostd.sock (else set things up, then call start()).
    explicit IngestHarness(ingest::ServerOptions server_options = {},
                           ingest::StatusProvider status_provider = {}, bool start_now = true,
                           const StoreOptions& store_options = test_options())
        : options(std::move(server_options)), status(std::move(status_provider)) {
        db_path = dir.file("store.db");
        store = open_store(db_path, store_options);
        if (options.socket_path.empty()) options.socket_path = dir.file("outpostd.sock");
        socket_path = options.socket_path;
        if (!start_now) return;
        Status started = start();
        if (!started) throw std::runtime_error("start: " + started.to_string());
    }

    Status start() {
        auto started = ingest::Server::start(*store, options, status);
        if (!started) return started.status();
        server = std::move(*started);
        return Status::ok();
    }

    std::unique_ptr<ingest::Client> connect() const {
        auto client = ingest::Client::connect(socket_path);
        if (!client) throw std::runtime_error("connect: " + client.status().to_string());
        return std::move(*client);
    }

    TempDir dir;
    ingest::ServerOptions options;
    ingest::StatusProvider status;
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
    nlohmann::json alarm = {{"deviceId", device},     {"alarmType", "OVER_TEMPERATURE"},
                            {"severity", "critical"}, {"value", 97.5},
                            {"unit", "degC"},         {"text", "bearing temperature above limit"}};
    if (!key.empty()) alarm["idempotencyKey"] = key;
    return {{"op", "raise_alarm"}, {"alarm", alarm}};
}

// Leaves a socket file nobody listens on, the way a killed daemon does.
inline void leave_stale_socket(const std::string& path) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    path.copy(address.sun_path, sizeof address.sun_path - 1);
    int rc = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    ::close(fd);
    if (rc != 0) throw std::runtime_error("bind " + path + " failed");
}

inline std::string error_code(const nlohmann::json& answer) {
    if (answer.value("ok", true)) return "";
    return answer["error"].value("code", "");
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_INGEST_HARNESS_H
