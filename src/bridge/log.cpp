#include "bridge/log.h"

#include <cstdio>
#include <mutex>

namespace outpost::bridge {
namespace {

std::mutex log_mutex;
std::string log_tag;  // set before threads start

void write_line(const char* prefix, const std::string& text) {
    std::lock_guard<std::mutex> lock(log_mutex);
    std::fprintf(stderr, "%s%s\n", prefix, text.c_str());
    std::fflush(stderr);
}

}  // namespace

void set_log_tag(const std::string& tag) {
    log_tag = "[" + tag + "]";
}

void log_info(const std::string& text) {
    write_line(("outpost-bridge" + log_tag + " info: ").c_str(), text);
}
void log_warning(const std::string& text) {
    write_line(("outpost-bridge" + log_tag + " warning: ").c_str(), text);
}
void log_error(const std::string& text) {
    write_line(("outpost-bridge" + log_tag + " error: ").c_str(), text);
}
void log_json_line(const std::string& json_line) {
    write_line("", json_line);
}

}  // namespace outpost::bridge
