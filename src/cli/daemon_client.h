// How outpostctl talks to a running outpostd over its ingestion socket
// (--socket PATH; outpostd's default is /run/outpost/outpostd.sock).
#ifndef OUTPOST_CLI_DAEMON_CLIENT_H
#define OUTPOST_CLI_DAEMON_CLIENT_H

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/context.h"

namespace outpost::cli {

// Sends `request` to the socket named by --socket and returns the daemon's
// answer when it is {"ok":true,...}. Otherwise prints why on stderr — no
// socket there, nobody listening, permission denied, no answer in time, or
// the daemon's own error (code and message) — and returns nullopt with
// `exit_code` set (kExitOperationalError). `what` names the request in
// messages ("recording the alarm"). `may_have_written`: a raise whose answer
// was lost may still be recorded; the message then says to retry with --key.
std::optional<nlohmann::json> ask_daemon(Context& context, const nlohmann::json& request,
                                         const std::string& what, bool may_have_written,
                                         int& exit_code);

}  // namespace outpost::cli

#endif  // OUTPOST_CLI_DAEMON_CLIENT_H
