#include "bridge/processes/session_child.h"

#include <pthread.h>
#include <unistd.h>

#include <cstdlib>

#include "bridge/processes/figures_line.h"
#include "common/child_report.h"

namespace outpost::bridge {
namespace {

// A whole non-negative decimal number, or -1.
int parse_index(const std::string& text) {
    if (text.empty() || text.size() > 6) return -1;
    for (char c : text) {
        if (c < '0' || c > '9') return -1;
    }
    return std::atoi(text.c_str());
}

}  // namespace

std::optional<SessionChildArguments> parse_session_child_arguments(int argc, char** argv,
                                                                   bool* usage_error) {
    *usage_error = false;
    bool session = false;
    for (int i = 1; i < argc; ++i) session = session || std::string(argv[i]) == "--session";
    if (!session) return std::nullopt;
    SessionChildArguments arguments;
    arguments.index = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const std::string value = argv[i + 1];
        if (flag == "--config") {
            arguments.config_path = value;
        } else if (flag == "--session") {
            arguments.index = parse_index(value);
        } else if (flag == "--stats-fd") {
            arguments.stats_fd = parse_index(value);
        } else {
            *usage_error = true;
        }
    }
    if (argc % 2 != 1 || arguments.config_path.empty() || arguments.index < 0 ||
        arguments.stats_fd < 0) {
        *usage_error = true;
    }
    if (*usage_error) return std::nullopt;
    return arguments;
}

BridgeConfig session_child_config(const BridgeConfig& config, int index) {
    BridgeConfig own = config;
    own.mqtt.endpoint.client_id = session_client_id(config.mqtt.endpoint.client_id, index);
    own.mqtt.sessions = 1;
    if (own.limits.max_messages_per_s > 0) own.limits.max_messages_per_s /= config.mqtt.sessions;
    // The broker spreads each gateway's messages over the group's sessions.
    own.limits.max_messages_per_s_per_gateway /= config.mqtt.sessions;
    own.metrics.listen.clear();
    own.status.file.clear();
    own.status.log_to_stderr = false;
    return own;
}

FiguresPipe::FiguresPipe(int fd, const FiguresSource& source, std::function<void()> on_broken)
    : fd_(fd), source_(source), on_broken_(std::move(on_broken)) {
    thread_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "figures");
        do {
            report();
        } while (!stop_.wait_for(kInterval));
    });
}

FiguresPipe::~FiguresPipe() {
    stop_.request_stop();
    thread_.join();
}

void FiguresPipe::report() {
    const std::string line = format_figures_line(source_.figures());
    std::lock_guard<std::mutex> lock(write_mutex_);
    if (broken_) return;
    if (!write_child_report(fd_, line)) {
        broken_ = true;
        stop_.request_stop();
        if (on_broken_) on_broken_();
    }
}

}  // namespace outpost::bridge
