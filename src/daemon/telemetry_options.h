// The telemetry lane's options as outpostd's configuration gives them: the
// broker settings of the publisher with the lane's own client id, ring and
// socket. One home for the mapping, used by the telemetry process
// (telemetry_main.cpp).
#ifndef OUTPOST_DAEMON_TELEMETRY_OPTIONS_H
#define OUTPOST_DAEMON_TELEMETRY_OPTIONS_H

#include "daemon/config.h"
#include "outpost/telemetry.h"

namespace outpost::daemon {

TelemetryOptions telemetry_options(const DaemonConfig& config);

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_TELEMETRY_OPTIONS_H
