// One line per event on stderr: "outpost-bridge <level>: <text>". Thread-safe.
#ifndef OUTPOST_BRIDGE_LOG_H
#define OUTPOST_BRIDGE_LOG_H

#include <string>

namespace outpost::bridge {

// Names this process in every line from now on ("outpost-bridge[TAG] ..."):
// a session process (session_child.h). Call before any thread starts.
void set_log_tag(const std::string& tag);
void log_info(const std::string& text);
void log_warning(const std::string& text);
void log_error(const std::string& text);
// `json_line` alone on its line (the status line: it starts with '{').
void log_json_line(const std::string& json_line);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_LOG_H
