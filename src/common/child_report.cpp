#include "common/child_report.h"

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace outpost {

std::string format_child_report(char kind, const nlohmann::json& report) {
    return std::string{kind, ' '} +
           report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::optional<nlohmann::json> parse_child_report(char kind, std::string_view line) {
    if (line.size() < 2 || line[0] != kind || line[1] != ' ') return std::nullopt;
    nlohmann::json report = nlohmann::json::parse(line.substr(2), nullptr, false);
    if (!report.is_object()) return std::nullopt;
    return report;
}

bool write_child_report(int fd, std::string_view line) {
    std::size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace outpost
