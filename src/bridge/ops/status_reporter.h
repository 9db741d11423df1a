// Publishes the figures of a FiguresSource (bridge_stats.h): every status.interval_ms one JSON line
// on stderr (status.log_to_stderr) and/or the same JSON in status.file, replaced atomically (write
// to FILE.tmp, rename) so readers never see half a file.
#ifndef OUTPOST_BRIDGE_OPS_STATUS_REPORTER_H
#define OUTPOST_BRIDGE_OPS_STATUS_REPORTER_H

#include <thread>

#include "bridge/config.h"
#include "bridge/ops/bridge_stats.h"
#include "bridge/stop_signal.h"

namespace outpost::bridge {

// Owns one thread ("status"), started by the constructor and stopped and
// joined by the destructor. `source` is borrowed and must outlive it.
class StatusReporter final {
  public:
    StatusReporter(const StatusConfig& config, const FiguresSource& source);
    ~StatusReporter();
    StatusReporter(const StatusReporter&) = delete;
    StatusReporter& operator=(const StatusReporter&) = delete;

    // Publishes the counters now (also called for the final report).
    // Thread-safe; file errors are logged, not returned.
    void report() const;

  private:
    void run();

    const StatusConfig config_;
    const FiguresSource& source_;
    StopSignal stop_;
    std::thread thread_;
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_OPS_STATUS_REPORTER_H
