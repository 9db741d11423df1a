// What outpostd logs at start, at warning level, about settings that weaken
// its security but are allowed: an unverified broker certificate, a
// password over plaintext that the configuration allowed, a configuration
// file with secrets open to other users (common/transport_security.h,
// common/config_file_mode.h).
#ifndef OUTPOST_DAEMON_START_WARNINGS_H
#define OUTPOST_DAEMON_START_WARNINGS_H

#include <string>
#include <vector>

#include "daemon/config.h"

namespace outpost::daemon {

// Every such warning for `config`, one sentence each; empty when none.
std::vector<std::string> weakened_security_warnings(const DaemonConfig& config);

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_START_WARNINGS_H
