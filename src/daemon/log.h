// outpostd's log: one line per event on stderr, with a level. When stderr is
// connected to the journal ($JOURNAL_STREAM names it), each line starts with
// the syslog priority "<N>" so journald files it at that level; otherwise it
// reads "outpostd <level>: <text>". Optionally also to syslog(3).
// Thread-safe; configure once, before other threads log.
#ifndef OUTPOST_DAEMON_LOG_H
#define OUTPOST_DAEMON_LOG_H

#include <optional>
#include <string>

namespace outpost::daemon {

enum class LogLevel { kError = 0, kWarning = 1, kInfo = 2, kDebug = 3 };

// "error", "warn", "info", "debug" (and "warning"); nullopt otherwise.
std::optional<LogLevel> parse_log_level(const std::string& name);
const char* log_level_name(LogLevel level);

// Lines above `level` are dropped. `use_syslog` opens syslog as "outpostd".
void configure_log(LogLevel level, bool use_syslog);

void log_error(const std::string& text);
void log_warning(const std::string& text);
void log_info(const std::string& text);
void log_debug(const std::string& text);

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_LOG_H
