#include "bridge/mqtt/topic_filter.h"

#include <cstddef>

namespace outpost::bridge {

std::vector<std::string> topic_levels(const std::string& topic) {
    std::vector<std::string> levels;
    std::size_t start = 0;
    for (;;) {
        const std::size_t slash = topic.find('/', start);
        if (slash == std::string::npos) {
            levels.push_back(topic.substr(start));
            return levels;
        }
        levels.push_back(topic.substr(start, slash - start));
        start = slash + 1;
    }
}

bool is_valid_topic_filter(const std::string& filter) {
    if (filter.empty() || filter.find('\0') != std::string::npos ||
        filter.rfind("$share/", 0) == 0) {
        return false;
    }
    const std::vector<std::string> levels = topic_levels(filter);
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const std::string& level = levels[i];
        const bool wildcard_inside = level.size() > 1 && (level.find('+') != std::string::npos ||
                                                          level.find('#') != std::string::npos);
        if (wildcard_inside || (level == "#" && i + 1 != levels.size())) {
            return false;
        }
    }
    return true;
}

bool topic_matches_filter(const std::string& filter, const std::string& topic) {
    if (!topic.empty() && topic[0] == '$' && !filter.empty() &&
        (filter[0] == '+' || filter[0] == '#')) {
        return false;
    }
    const std::vector<std::string> wanted = topic_levels(filter);
    const std::vector<std::string> got = topic_levels(topic);
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        if (wanted[i] == "#") {
            return true;  // also matches the parent level itself ("a/#" matches "a")
        }
        if (i >= got.size()) {
            return false;
        }
        if (wanted[i] != "+" && wanted[i] != got[i]) {
            return false;
        }
    }
    return wanted.size() == got.size();
}

}  // namespace outpost::bridge
