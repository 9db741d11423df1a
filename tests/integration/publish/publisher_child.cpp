// A publisher in its own process, for the tests that kill it or run two:
//   publisher_child DB BROKER_URI CLIENT_ID STATUS_FILE
// Runs until SIGTERM (then stops cleanly), writing its status as one JSON
// object to STATUS_FILE (atomically, by rename) every 10 ms.
#include <signal.h>
#include <stdio.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "outpost/publisher.h"
#include "outpost/store.h"

namespace {

std::atomic<bool> g_stop{false};

void write_status(const outpost::PublisherStatus& status, const std::string& path) {
    nlohmann::json json{{"lease_held", status.lease_held},
                        {"lease_epoch", status.lease_epoch},
                        {"connected", status.connected},
                        {"in_flight", status.in_flight},
                        {"published", status.published},
                        {"sent", status.sent},
                        {"dead", status.dead},
                        {"reconnects", status.reconnects},
                        {"last_error", status.last_error}};
    const std::string temporary = path + ".tmp";
    std::ofstream(temporary) << json.dump();
    std::rename(temporary.c_str(), path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s DB BROKER_URI CLIENT_ID STATUS_FILE\n", argv[0]);
        return 2;
    }
    signal(SIGTERM, [](int) { g_stop = true; });

    outpost::StoreOptions store_options;
    store_options.gateway_id = "gw-test";
    auto store = outpost::Store::open(argv[1], store_options);
    if (!store) {
        std::fprintf(stderr, "open: %s\n", store.status().to_string().c_str());
        return 1;
    }
    outpost::PublisherOptions options;
    options.receipts = false;  // no bridge answers in these tests: SENT is final
    options.endpoint.uri = argv[2];
    options.endpoint.client_id = argv[3];
    options.endpoint.reconnect_initial = std::chrono::milliseconds(50);
    options.endpoint.reconnect_max = std::chrono::milliseconds(500);
    options.lease_retry = std::chrono::milliseconds(50);
    auto publisher = outpost::Publisher::start(**store, options);
    if (!publisher) {
        std::fprintf(stderr, "start: %s\n", publisher.status().to_string().c_str());
        return 1;
    }
    while (!g_stop) {
        write_status((*publisher)->status(), argv[4]);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    outpost::Status stopped = (*publisher)->stop();
    write_status((*publisher)->status(), argv[4]);
    std::fprintf(stderr, "stopped: %s\n", stopped.to_string().c_str());
    return stopped ? 0 : 1;
}
