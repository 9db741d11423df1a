// Whether a configuration file that holds secrets (an MQTT password, a key
// password) is open to more users than the service. Both programs check
// their file at start and warn: the secret stays usable, the exposure is
// loud.
#ifndef OUTPOST_COMMON_CONFIG_FILE_MODE_H
#define OUTPOST_COMMON_CONFIG_FILE_MODE_H

#include <string>
#include <vector>

namespace outpost {

// A warning when `path` can be read or written by every user, or read by a
// group other than the one this process runs as (the documented set-up is
// mode 0640 with the service's group, or 0600): one sentence naming the
// file, its mode, the secret fields in `secrets` and the chmod that fixes
// it. Empty when the mode is fine, when `secrets` is empty, or when the
// file cannot be examined (reading it reports that).
std::string exposed_secrets_warning(const std::string& path,
                                    const std::vector<std::string>& secrets);

}  // namespace outpost

#endif  // OUTPOST_COMMON_CONFIG_FILE_MODE_H
