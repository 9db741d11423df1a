#include "bridge/ops/status_reporter.h"

#include <pthread.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/service_log.h"

namespace outpost::bridge {

StatusReporter::StatusReporter(const StatusConfig& config, const FiguresSource& source)
    : config_(config), source_(source), thread_([this] { run(); }) {}

StatusReporter::~StatusReporter() {
    stop_.request_stop();
    thread_.join();
}

void StatusReporter::run() {
    pthread_setname_np(pthread_self(), "status");
    while (!stop_.wait_for(std::chrono::milliseconds(config_.interval_ms))) report();
}

void StatusReporter::report() const {
    const std::string line = figures_json_line(source_.figures());
    if (config_.log_to_stderr) log_json_line(line);
    if (config_.file.empty()) return;
    // Unique per thread: the final report may race the periodic one.
    const std::string temporary =
        config_.file + ".tmp" +
        std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
    FILE* out = std::fopen(temporary.c_str(), "w");
    bool written = out != nullptr && std::fputs((line + "\n").c_str(), out) >= 0;
    if (out != nullptr && std::fclose(out) != 0) written = false;
    if (!written || std::rename(temporary.c_str(), config_.file.c_str()) != 0) {
        log_warning("cannot write status file " + config_.file + ": " + std::strerror(errno));
        std::remove(temporary.c_str());
    }
}

}  // namespace outpost::bridge
