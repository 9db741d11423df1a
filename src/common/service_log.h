// The services' log (outpostd, outpost-telemetry, outpost-bridge and its
// session processes): one line per event on stderr, with a level. When
// stderr is connected to the journal ($JOURNAL_STREAM names it), each line
// starts with the syslog priority "<N>" so journald files it at that level
// (journald adds the program's name itself); otherwise it reads
// "<program>[<tag>] <level>: <text>" ("[<tag>]" only once set_log_tag ran).
// Optionally also to syslog(3). Thread-safe; configure once, before other
// threads log.
#ifndef OUTPOST_COMMON_SERVICE_LOG_H
#define OUTPOST_COMMON_SERVICE_LOG_H

#include <optional>
#include <string>

namespace outpost {

enum class LogLevel { kError = 0, kWarning = 1, kInfo = 2, kDebug = 3 };

// "error", "warn", "info", "debug" (and "warning"); nullopt otherwise.
std::optional<LogLevel> parse_log_level(const std::string& name);
const char* log_level_name(LogLevel level);

// `program` leads every line off the journal and names the syslog
// identity. Lines above `level` are dropped. `use_syslog` opens syslog.
// Before the first call: "outpost", level info, no syslog.
void configure_log(const std::string& program, LogLevel level, bool use_syslog);

// Names this process in every line from now on: "<program>[<tag>] ...",
// or "<N>[<tag>] ..." on the journal (the bridge's session processes).
void set_log_tag(const std::string& tag);

void log_error(const std::string& text);
void log_warning(const std::string& text);
void log_info(const std::string& text);
void log_debug(const std::string& text);
// `json_line` alone on its line, whatever the level and the journal (the
// bridge's status line: it starts with '{').
void log_json_line(const std::string& json_line);

}  // namespace outpost

#endif  // OUTPOST_COMMON_SERVICE_LOG_H
