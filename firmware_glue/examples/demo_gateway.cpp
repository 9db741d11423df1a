// A demo gateway: records alarms through the C++ API (the firmware's fast
// path) while the publisher forwards them to an MQTT broker, and prints the
// outbox moving once a second. Used by scripts/demo.
//
//   outpost-demo-gateway --db PATH --broker URI [--gateway ID] [--alarms N]
//                        [--rate PER_SECOND] [--devices K] [--timeout SECONDS]
//
// Exits 0 once every recorded alarm is SENT, 1 on error or timeout.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "outpost/publisher.h"
#include "outpost/store.h"

namespace {

struct Args {
    std::string db;
    std::string broker;
    std::string gateway = "gw-demo";
    long alarms = 200;
    double rate = 50;
    int devices = 4;
    int timeout_s = 120;
};

const char* kUsage =
    "usage: outpost-demo-gateway --db PATH --broker URI [--gateway ID (gw-demo)]\n"
    "         [--alarms N (200)] [--rate PER_SECOND (50)] [--devices K (4)]\n"
    "         [--timeout SECONDS (120)]\n"
    "Records N alarms at the given rate across K devices while the publisher\n"
    "forwards them over MQTT v5 QoS 1; prints store and publisher status each second.\n";

bool parse(int argc, char** argv, Args* args) {
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        auto value = [&](const char* name) -> const char* {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "outpost-demo-gateway: %s needs a value\n", name);
                std::exit(2);
            }
            return argv[++i];
        };
        if (arg == "--db") args->db = value("--db");
        else if (arg == "--broker") args->broker = value("--broker");
        else if (arg == "--gateway") args->gateway = value("--gateway");
        else if (arg == "--alarms") args->alarms = std::atol(value("--alarms"));
        else if (arg == "--rate") args->rate = std::atof(value("--rate"));
        else if (arg == "--devices") args->devices = std::atoi(value("--devices"));
        else if (arg == "--timeout") args->timeout_s = std::atoi(value("--timeout"));
        else if (arg == "-h" || arg == "--help") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        } else {
            std::fprintf(stderr, "outpost-demo-gateway: unknown argument '%s'\n%s", arg.c_str(), kUsage);
            return false;
        }
    }
    if (args->db.empty() || args->broker.empty()) {
        std::fprintf(stderr, "outpost-demo-gateway: --db and --broker are required\n%s", kUsage);
        return false;
    }
    if (args->alarms <= 0 || args->rate <= 0 || args->devices <= 0) {
        std::fprintf(stderr, "outpost-demo-gateway: --alarms, --rate and --devices must be positive\n");
        return false;
    }
    return true;
}

void print_status(outpost::Store& store, const outpost::Publisher& publisher, long recorded) {
    auto stats = store.stats();
    auto status = publisher.status();
    if (!stats) {
        std::fprintf(stderr, "status: %s\n", stats.status().to_string().c_str());
        return;
    }
    std::printf(
        "recorded=%ld pending=%lld sent=%lld dead=%lld in_flight=%lld connected=%s "
        "epoch=%lld commit_to_puback_p99_us=%lld wal_bytes_per_alarm=%.0f\n",
        recorded, static_cast<long long>(stats->pending), static_cast<long long>(stats->sent),
        static_cast<long long>(stats->dead), static_cast<long long>(status.in_flight),
        status.connected ? "yes" : "no", static_cast<long long>(status.lease_epoch),
        static_cast<long long>(status.commit_to_ack_p99_us),
        stats->events_recorded ? double(stats->wal_bytes) / stats->events_recorded : 0.0);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!parse(argc, argv, &args)) return 2;

    outpost::StoreOptions store_options;
    store_options.gateway_id = args.gateway;
    auto store = outpost::Store::open(args.db, store_options);
    if (!store) {
        std::fprintf(stderr, "outpost-demo-gateway: %s\n", store.status().to_string().c_str());
        return 1;
    }
    outpost::PublisherOptions publisher_options;
    publisher_options.endpoint.uri = args.broker;
    publisher_options.endpoint.client_id = args.gateway + "-publisher";
    auto publisher = outpost::Publisher::start(**store, publisher_options);
    if (!publisher) {
        std::fprintf(stderr, "outpost-demo-gateway: %s\n", publisher.status().to_string().c_str());
        return 1;
    }

    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + std::chrono::seconds(args.timeout_s);
    auto next_print = start;
    long recorded = 0;
    const char* kinds[] = {"OVER_TEMPERATURE", "LOW_PRESSURE", "DOOR_OPEN", "VIBRATION"};
    for (;;) {
        auto now = std::chrono::steady_clock::now();
        long due = static_cast<long>(std::chrono::duration<double>(now - start).count() * args.rate);
        while (recorded < args.alarms && recorded < due) {
            outpost::Alarm alarm;
            alarm.device_id = "sensor-" + std::to_string(recorded % args.devices);
            alarm.alarm_type = kinds[recorded % 4];
            alarm.severity = recorded % 10 == 0 ? outpost::Severity::kCritical : outpost::Severity::kMajor;
            alarm.value = 40.0 + static_cast<double>(recorded % 17);
            alarm.unit = "degC";
            alarm.text = "demo alarm " + std::to_string(recorded);
            auto result = (*store)->record_alarm(alarm);
            if (!result) {
                std::fprintf(stderr, "record_alarm: %s\n", result.status().to_string().c_str());
                return 1;
            }
            ++recorded;
        }
        if (now >= next_print) {
            print_status(**store, **publisher, recorded);
            next_print += std::chrono::seconds(1);
        }
        auto stats = (*store)->stats();
        if (recorded == args.alarms && stats && stats->pending == 0) break;
        if (now > deadline) {
            std::fprintf(stderr, "outpost-demo-gateway: timed out with alarms still pending\n");
            return 1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    print_status(**store, **publisher, recorded);
    outpost::Status stopped = (*publisher)->stop();
    if (!stopped) std::fprintf(stderr, "stop: %s\n", stopped.to_string().c_str());
    std::printf("all %ld alarms recorded durably and acknowledged by the broker\n", recorded);
    return 0;
}
