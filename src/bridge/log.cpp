#include "bridge/log.h"

#include <cstdio>
#include <mutex>

namespace outpost::bridge {
namespace {

std::mutex log_mutex;

void write_line(const char* prefix, const std::string& text) {
    std::lock_guard<std::mutex> lock(log_mutex);
    std::fprintf(stderr, "%s%s\n", prefix, text.c_str());
    std::fflush(stderr);
}

}  // namespace

void log_info(const std::string& text) {
    write_line("outpost-bridge info: ", text);
}
void log_warning(const std::string& text) {
    write_line("outpost-bridge warning: ", text);
}
void log_error(const std::string& text) {
    write_line("outpost-bridge error: ", text);
}
void log_json_line(const std::string& json_line) {
    write_line("", json_line);
}

}  // namespace outpost::bridge
