// The daemon's figures in the Prometheus text exposition format (0.0.4):
// every family with # HELP and # TYPE, names outpost_*, units in the name
// (seconds, bytes), counters ending in _total.
#ifndef OUTPOST_DAEMON_PROMETHEUS_H
#define OUTPOST_DAEMON_PROMETHEUS_H

#include <string>

#include "daemon/snapshot.h"

namespace outpost::daemon {

inline constexpr char kPrometheusContentType[] = "text/plain; version=0.0.4; charset=utf-8";

std::string render_prometheus(const DaemonSnapshot& snapshot);

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_PROMETHEUS_H
