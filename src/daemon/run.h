// outpostd's main loop: starts the Daemon, tells systemd it is ready, pets
// the watchdog while the publisher loop makes progress, and shuts down on
// SIGTERM or SIGINT.
#ifndef OUTPOST_DAEMON_RUN_H
#define OUTPOST_DAEMON_RUN_H

#include "daemon/config.h"

namespace outpost::daemon {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Returns the process exit code: 0 after a signal-driven clean stop, 1 when
// a part could not start.
int run_daemon(const DaemonConfig& config);

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_RUN_H
