#include "common/service_log.h"

#include <sys/stat.h>
#include <syslog.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace outpost {
namespace {

std::mutex log_mutex;
std::atomic<int> max_level{static_cast<int>(LogLevel::kInfo)};
bool to_syslog = false;  // written by configure_log only
bool to_journal = false;
std::string program_name = "outpost";  // written by configure_log only
std::string tag;                       // "[<tag>]"; written by set_log_tag only

// systemd sets JOURNAL_STREAM="<dev>:<inode>" of the stream it connected;
// it only counts if stderr is still that stream (not redirected since).
bool stderr_is_journal() {
    const char* stream = std::getenv("JOURNAL_STREAM");
    if (stream == nullptr) return false;
    unsigned long long device = 0, inode = 0;
    if (std::sscanf(stream, "%llu:%llu", &device, &inode) != 2) return false;
    struct stat info {};
    if (fstat(2, &info) != 0) return false;
    return static_cast<unsigned long long>(info.st_dev) == device &&
           static_cast<unsigned long long>(info.st_ino) == inode;
}

int syslog_priority(LogLevel level) {
    switch (level) {
        case LogLevel::kError:
            return LOG_ERR;
        case LogLevel::kWarning:
            return LOG_WARNING;
        case LogLevel::kInfo:
            return LOG_INFO;
        case LogLevel::kDebug:
            return LOG_DEBUG;
    }
    return LOG_INFO;
}

void write_line(LogLevel level, const std::string& text) {
    if (static_cast<int>(level) > max_level.load(std::memory_order_relaxed)) return;
    std::lock_guard<std::mutex> lock(log_mutex);
    if (to_journal) {
        std::fprintf(stderr, "<%d>%s%s%s\n", syslog_priority(level), tag.c_str(),
                     tag.empty() ? "" : " ", text.c_str());
    } else {
        std::fprintf(stderr, "%s%s %s: %s\n", program_name.c_str(), tag.c_str(),
                     log_level_name(level), text.c_str());
    }
    std::fflush(stderr);
    if (to_syslog) syslog(syslog_priority(level), "%s", text.c_str());
}

}  // namespace

std::optional<LogLevel> parse_log_level(const std::string& name) {
    if (name == "error") return LogLevel::kError;
    if (name == "warn" || name == "warning") return LogLevel::kWarning;
    if (name == "info") return LogLevel::kInfo;
    if (name == "debug") return LogLevel::kDebug;
    return std::nullopt;
}

const char* log_level_name(LogLevel level) {
    switch (level) {
        case LogLevel::kError:
            return "error";
        case LogLevel::kWarning:
            return "warn";
        case LogLevel::kInfo:
            return "info";
        case LogLevel::kDebug:
            return "debug";
    }
    return "info";
}

void configure_log(const std::string& program, LogLevel level, bool use_syslog) {
    std::lock_guard<std::mutex> lock(log_mutex);
    max_level = static_cast<int>(level);
    to_journal = stderr_is_journal();
    // openlog keeps the pointer: the name is not changed while syslog is open.
    if (!to_syslog) program_name = program;
    if (use_syslog && !to_syslog) openlog(program_name.c_str(), LOG_PID, LOG_DAEMON);
    to_syslog = use_syslog;
}

void set_log_tag(const std::string& new_tag) {
    std::lock_guard<std::mutex> lock(log_mutex);
    tag = "[" + new_tag + "]";
}

void log_error(const std::string& text) {
    write_line(LogLevel::kError, text);
}
void log_warning(const std::string& text) {
    write_line(LogLevel::kWarning, text);
}
void log_info(const std::string& text) {
    write_line(LogLevel::kInfo, text);
}
void log_debug(const std::string& text) {
    write_line(LogLevel::kDebug, text);
}
void log_json_line(const std::string& json_line) {
    std::lock_guard<std::mutex> lock(log_mutex);
    std::fprintf(stderr, "%s\n", json_line.c_str());
    std::fflush(stderr);
}

}  // namespace outpost
