#include "publish/envelope_clock.h"

#include <cctype>

namespace outpost::publish {

std::optional<int64_t> recorded_uptime_ms(const std::string& envelope, const std::string& boot_id) {
    const std::string boot_key = "\"bootId\":\"";
    size_t boot = envelope.find(boot_key);
    if (boot == std::string::npos) return std::nullopt;
    boot += boot_key.size();
    if (envelope.compare(boot, boot_id.size(), boot_id) != 0 ||
        envelope.size() <= boot + boot_id.size() || envelope[boot + boot_id.size()] != '"') {
        return std::nullopt;
    }
    const std::string uptime_key = "\"uptimeMs\":";
    size_t at = envelope.find(uptime_key);
    if (at == std::string::npos) return std::nullopt;
    at += uptime_key.size();
    int64_t value = 0;
    size_t digits = 0;
    while (at < envelope.size() && std::isdigit(static_cast<unsigned char>(envelope[at]))) {
        value = value * 10 + (envelope[at] - '0');
        ++at;
        ++digits;
    }
    if (digits == 0 || digits > 18) return std::nullopt;
    return value;
}

}  // namespace outpost::publish
