// Turns the rocketmq section of the configuration into the producer's
// ClientSecurity: reads the secret file (refusing one every user can read)
// and loads the TLS files. Called once at start, and by --check-config.
#ifndef OUTPOST_BRIDGE_ROCKETMQ_ROCKETMQ_SECURITY_H
#define OUTPOST_BRIDGE_ROCKETMQ_ROCKETMQ_SECURITY_H

#include <string>

#include "bridge/config.h"
#include "outpost/status.h"
#include "rocketmq/client_security.h"

namespace outpost::bridge {

// Reads the secret in `path`: its content without trailing whitespace.
// Fails with kInvalidArgument when the file cannot be read, is not a regular
// file, is readable or writable by every user (the message says which chmod
// fixes it) or holds no secret. The secret never appears in a message.
Result<std::string> read_secret_file(const std::string& path);

// Credentials when config.access_key is set, a TLS context when
// config.tls.enabled. Fails with kInvalidArgument naming the field and file
// at fault. (tls.insecure_skip_verify is warned about at start, with the
// other weakened settings: weakened_security.h.)
Result<rocketmq::ClientSecurity> load_rocketmq_security(const RocketMqConfig& config);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_ROCKETMQ_ROCKETMQ_SECURITY_H
