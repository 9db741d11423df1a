// The session process's side of session_processes.h: outpost-bridge
// started by its own supervising bridge process as
//
//     outpost-bridge --config FILE --session I --stats-fd N
//
// runs session I of FILE's configuration alone (session_child_config) and
// writes its figures (figures_line.h) to descriptor N at once when its
// session started, every FiguresPipe::kInterval after, and once more as it
// stops. It is the same binary, not a test hook: an operator never starts
// it so (--help does not list it).
#ifndef OUTPOST_BRIDGE_PROCESSES_SESSION_CHILD_H
#define OUTPOST_BRIDGE_PROCESSES_SESSION_CHILD_H

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "bridge/config.h"
#include "bridge/ops/bridge_stats.h"
#include "bridge/stop_signal.h"

namespace outpost::bridge {

struct SessionChildArguments {
    std::string config_path;
    int index = 0;
    int stats_fd = -1;
};

// nullopt when argv is not a session process's command line (no
// "--session"); *usage_error is then false. A "--session" command line
// that is malformed sets *usage_error.
std::optional<SessionChildArguments> parse_session_child_arguments(int argc, char** argv,
                                                                   bool* usage_error);

// What session process `index` runs: session `index` of the group alone
// (mqtt.sessions 1, client id session_client_id(client_id, index)), its
// share of limits.max_messages_per_s, no metrics endpoint and no status
// output of its own (its supervisor reports the totals). Its share of
// limits.max_messages_per_s_per_gateway too.
BridgeConfig session_child_config(const BridgeConfig& config, int index);

// Owns the thread "figures" writing source.figures() to `fd`. When the pipe
// breaks (the supervisor is gone) it calls `on_broken` once and stops.
class FiguresPipe final {
  public:
    static constexpr std::chrono::milliseconds kInterval{100};

    FiguresPipe(int fd, const FiguresSource& source, std::function<void()> on_broken);
    ~FiguresPipe();
    FiguresPipe(const FiguresPipe&) = delete;
    FiguresPipe& operator=(const FiguresPipe&) = delete;

    // Writes the figures now (the last report before exit). Thread-safe.
    void report();

  private:
    const int fd_;
    const FiguresSource& source_;
    const std::function<void()> on_broken_;
    std::mutex write_mutex_;
    bool broken_ = false;  // guarded by write_mutex_
    StopSignal stop_;
    std::thread thread_;
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_PROCESSES_SESSION_CHILD_H
