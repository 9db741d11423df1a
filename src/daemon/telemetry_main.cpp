// outpost-telemetry: outpostd's telemetry lane in a process of its own (see
// telemetry_supervisor.h for why). outpostd starts it with its own
// configuration file and a pipe for the reports:
//
//     outpost-telemetry --config FILE --stats-fd N
//
// It runs the TelemetryLane of the configuration's "telemetry" object (the
// datagram socket included) at the configuration's telemetry.scheduling
// (telemetry_scheduling.h: nice kTelemetryNice, or SCHED_IDLE), writes one report line
// (telemetry_stats_line.h) at once when the lane runs and every
// kReportInterval after, and stops the lane on SIGTERM/SIGINT (what is left
// in the ring counts as dropped_disconnected), writes a last report and
// exits 0. Exit 1: the lane could not start; 2: usage or configuration.
// When the report pipe breaks (outpostd is gone) it stops as on SIGTERM.
#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/child_report.h"
#include "common/service_log.h"
#include "common/stop_signals.h"
#include "daemon/config.h"
#include "daemon/telemetry_options.h"
#include "daemon/telemetry_scheduling.h"
#include "daemon/telemetry_stats_line.h"
#include "outpost/telemetry.h"
#include "telemetry/lane_impl.h"

namespace {

using namespace outpost;
using namespace outpost::daemon;

constexpr std::chrono::milliseconds kReportInterval{250};

// Writes the whole line; false when the pipe is gone.
bool report(int fd, const TelemetryStats& stats) {
    return write_child_report(fd, format_telemetry_stats(stats));
}

int usage() {
    std::fprintf(stderr,
                 "usage: outpost-telemetry --config FILE --stats-fd N\n"
                 "(started by outpostd; runs the telemetry lane of FILE in its own process)\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::string config_path;
    int stats_fd = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--config") {
            config_path = argv[i + 1];
        } else if (flag == "--stats-fd") {
            stats_fd = std::atoi(argv[i + 1]);
        } else {
            return usage();
        }
    }
    if (argc % 2 != 1 || config_path.empty() || stats_fd < 0) return usage();
    Result<DaemonConfig> config = load_daemon_config(config_path);
    if (!config.is_ok()) {
        std::fprintf(stderr, "outpost-telemetry: %s\n", config.status().message().c_str());
        return 2;
    }
    if (!config->telemetry.enabled) {
        std::fprintf(stderr, "outpost-telemetry: %s has no \"telemetry\" object\n",
                     config_path.c_str());
        return 2;
    }
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    mallopt(M_ARENA_MAX, 1);  // as outpostd (main.cpp): few threads, small allocations
#endif
    configure_log("outpostd", config->logging.level, config->logging.syslog);
    const sigset_t stop_signals = block_stop_signals();
    // Before any thread starts: the lane's and paho's threads inherit it.
    const Status scheduled = apply_telemetry_scheduling(config->telemetry.scheduling);
    if (!scheduled.is_ok()) {
        log_warning("telemetry process: scheduling \"" +
                    std::string(telemetry_scheduling_name(config->telemetry.scheduling)) +
                    "\" not applied: " + scheduled.to_string());
    }

    Result<std::unique_ptr<TelemetryLane>> lane = TelemetryLane::start(telemetry_options(*config));
    if (!lane.is_ok()) {
        log_error("telemetry process: " + lane.status().to_string());
        return 1;
    }
    bool pipe_open = report(stats_fd, (*lane)->stats());
    while (pipe_open) {
        const timespec timeout{0, static_cast<long>(kReportInterval.count()) * 1000000L};
        if (sigtimedwait(&stop_signals, nullptr, &timeout) > 0) break;
        pipe_open = report(stats_fd, (*lane)->stats());
    }
    (*lane)->stop();
    if (pipe_open) report(stats_fd, (*lane)->stats());
    return 0;
}
