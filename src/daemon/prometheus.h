// The daemon's figures in the Prometheus text exposition format, with the
// conventions of common/prometheus_text.h.
#ifndef OUTPOST_DAEMON_PROMETHEUS_H
#define OUTPOST_DAEMON_PROMETHEUS_H

#include <string>

#include "daemon/snapshot.h"

namespace outpost::daemon {

std::string render_prometheus(const DaemonSnapshot& snapshot);

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_PROMETHEUS_H
