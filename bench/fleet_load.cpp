// Fleet benchmark: a thousand gateways and a reconnect storm. Runs G gateway
// identities in this process (each its own MQTT v5 session and topics; some
// of them real Outpost publishers with receipts, the rest bare paho clients
// that behave as one), a mosquitto started here with persistence on as the
// shipped configuration has it, and outpost-bridge (receipts on) against a
// RocketMQ: warm-up, a steady phase, then the broker restarted (SIGTERM,
// SIGKILL) while the fleet keeps raising alarms, then a final drain. The
// fleet itself is tests/support/fleet/fleet_run.h, shared with the
// integration test "bridge/a fleet of 200 gateways ...".
//
// Prints one line per phase on stderr, a readable summary and one JSON
// line on stdout. Exit status 1 when an alarm was lost or a receipt is
// missing at the end, 0 otherwise.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <ctime>
#include <string>
#include <vector>

#include "bench_rocketmq.h"
#include "fleet_run.h"
#include "mosquitto_fixture.h"

using namespace outpost;

namespace {

struct Flag {
    const char* name;
    double* value;
    const char* help;
};

void usage(const char* program, const std::vector<Flag>& flags) {
    std::fprintf(stderr,
                 "usage: %s [--flag=value ...]\n"
                 "A fleet of gateways through outpost-bridge and broker restarts; see\n"
                 "docs/performance.md (\"A fleet of gateways\"). RocketMQ: the one\n"
                 "OUTPOST_ROCKETMQ_ENV names (scripts/rocketmq.sh start DIR writes DIR/env),\n"
                 "else one started here (SYNC_FLUSH, a minute or two). mosquitto and the\n"
                 "bridge are started here. Prints a summary and one JSON line on stdout;\n"
                 "exits 1 when an alarm was lost or a receipt is missing.\n\n",
                 program);
    for (const Flag& flag : flags) {
        std::fprintf(stderr, "  --%-18s %s (default %g)\n", flag.name, flag.help, *flag.value);
    }
    std::fprintf(stderr, "  --%-18s %s (default both)\n", "restart",
                 "graceful (SIGTERM), kill (SIGKILL), both (graceful then kill) or none");
}

}  // namespace

int main(int argc, char** argv) {
    fleet::FleetOptions options;
    double gateways = options.gateways, outpost = options.outpost_gateways,
           interval = options.interval_s, burst_fraction = options.burst_fraction,
           burst_size = options.burst_size, warmup = options.warmup_s, steady = options.steady_s,
           down = options.down_s, settle = options.settle_s, drain = options.drain_limit_s,
           receipt_timeout = 30, sessions = options.bridge_sessions, seed = 1,
           bridge_reconnect_max = 0, bridge_batch = 0;
    const std::vector<Flag> flags = {
        {"gateways", &gateways, "gateway identities, each its own MQTT session"},
        {"outpost-gateways", &outpost,
         "of those, real Outpost Store + Publisher (receipts on), store on tmpfs"},
        {"interval-s", &interval, "mean seconds between a gateway's alarms (jittered 0.5x-1.5x)"},
        {"burst-fraction", &burst_fraction, "share of gateways raising a burst at each tick"},
        {"burst-size", &burst_size, "alarms of one burst"},
        {"warmup-s", &warmup, "load before the steady phase"},
        {"steady-s", &steady, "steady phase measured for rate and CPU per message"},
        {"down-s", &down, "seconds the broker stays down at each restart"},
        {"settle-s", &settle, "load between a drain and the next restart"},
        {"drain-limit-s", &drain, "longest wait for a reconnect or a drain"},
        {"receipt-timeout-s", &receipt_timeout,
         "gateways publish again an alarm without receipt after this (the publisher's default)"},
        {"bridge-sessions", &sessions, "the bridge's mqtt.sessions"},
        {"bridge-reconnect-max-ms", &bridge_reconnect_max,
         "the bridge's mqtt.reconnect_max_ms; 0: its default"},
        {"bridge-batch", &bridge_batch,
         "the bridge's batch.max_messages (1: one request per message); 0: its default"},
        {"seed", &seed, "seed of the jitter and the choice of bursting gateways"},
    };
    std::string restart = "both";
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const std::size_t equals = arg.find('=');
        bool known = false;
        if (arg.rfind("--", 0) == 0 && equals != std::string::npos) {
            const std::string name = arg.substr(2, equals - 2);
            const std::string value = arg.substr(equals + 1);
            if (name == "restart" &&
                (value == "graceful" || value == "kill" || value == "both" || value == "none")) {
                restart = value;
                known = true;
            }
            for (const Flag& flag : flags) {
                if (name == flag.name && !value.empty()) {
                    *flag.value = std::atof(value.c_str());
                    known = true;
                }
            }
        }
        if (!known) {
            usage(argv[0], flags);
            return arg == "--help" ? 0 : 2;
        }
    }
    options.gateways = static_cast<int>(gateways);
    options.outpost_gateways = static_cast<int>(outpost);
    options.interval_s = interval;
    options.burst_fraction = burst_fraction;
    options.burst_size = static_cast<int>(burst_size);
    options.warmup_s = warmup;
    options.steady_s = steady;
    options.down_s = down;
    options.settle_s = settle;
    options.drain_limit_s = drain;
    options.receipt_timeout_ms = static_cast<int64_t>(receipt_timeout * 1000);
    options.bridge_sessions = static_cast<int>(sessions);
    options.bridge_reconnect_max_ms = static_cast<int>(bridge_reconnect_max);
    options.bridge_batch = static_cast<int>(bridge_batch);
    options.seed = static_cast<uint64_t>(seed);
    options.restarts.clear();
    if (restart == "graceful" || restart == "both") {
        options.restarts.push_back(fleet::Restart::kGraceful);
    }
    if (restart == "kill" || restart == "both") options.restarts.push_back(fleet::Restart::kKill);

    if (!testing::mosquitto_available()) {
        std::fprintf(stderr, "mosquitto is not installed\n");
        return 77;
    }
    // Every gateway holds a socket here and at the broker (a child: it
    // inherits this limit), and every Outpost store a few files.
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0) {
        files.rlim_cur = files.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &files);
    }
    bench::BenchRocketMq rocketmq("fleet_load");
    if (rocketmq.name_servers().empty()) {
        std::fprintf(stderr, "fleet_load: no RocketMQ name server\n");
        return 1;
    }
    options.bridge_binary = OUTPOST_BRIDGE_BINARY;
    options.source_root = OUTPOST_SOURCE_ROOT;
    options.name_servers = rocketmq.name_servers();
    options.rocketmq_broker = rocketmq.broker_address();
    options.rocketmq_dir = rocketmq.directory();
    options.topic = "outpost_fleet_" + std::to_string(std::time(nullptr));
    options.progress = [](const std::string& line) {
        std::fprintf(stderr, "fleet_load: %s\n", line.c_str());
    };
    fleet::FleetReport report;
    try {
        report = fleet::run_fleet(options);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "fleet_load: %s\n", error.what());
        return 1;
    }
    std::printf("gateways %d (%d Outpost publishers), alarms raised %llu, lost %llu, unsent %llu\n",
                report.gateways, report.outpost_gateways,
                static_cast<unsigned long long>(report.alarms_raised),
                static_cast<unsigned long long>(report.alarms_lost),
                static_cast<unsigned long long>(report.alarms_unsent));
    std::printf("receipts %llu of %llu; published again: %llu without PUBACK, "
                "%llu without receipt\n",
                static_cast<unsigned long long>(report.receipts_delivered),
                static_cast<unsigned long long>(report.receipts_expected),
                static_cast<unsigned long long>(report.republished_unacked),
                static_cast<unsigned long long>(report.republished_unreceipted));
    std::printf("steady: %.1f msg/s, CPU per message: bridge %.0f us, mosquitto %.0f us, "
                "fleet %.0f us\n",
                report.steady_msg_per_s, report.steady_bridge_cpu_us_per_msg,
                report.steady_broker_cpu_us_per_msg, report.steady_fleet_cpu_us_per_msg);
    for (const fleet::RestartFigures& r : report.restarts) {
        std::printf("restart %s: backlog %llu, peak %d connects/s, all reconnected %.1f s, "
                    "drained %.1f s after the broker was back\n",
                    fleet::restart_name(r.kind), static_cast<unsigned long long>(r.backlog),
                    r.peak_connects_per_s, r.reconnected_s, r.drained_s);
    }
    nlohmann::json summary = report.to_json();
    summary["flush_disk_type"] = rocketmq.durability().flush_disk_type;
    summary["send_ok"] = rocketmq::durability_name(rocketmq.durability().verdict);
    std::printf("%s\n", summary.dump().c_str());
    const bool whole =
        report.alarms_lost == 0 && report.receipts_delivered == report.receipts_expected;
    return whole ? 0 : 1;
}
