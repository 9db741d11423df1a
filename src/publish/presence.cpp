#include "publish/presence.h"

#include <nlohmann/json.hpp>

namespace outpost::publish {

std::string status_topic(const std::string& gateway_id) {
    return "outpost/" + gateway_id + "/status";
}

std::string online_payload(const std::string& gateway_id, const std::string& boot_id,
                           int64_t epoch) {
    return nlohmann::json{
        {"state", "online"}, {"gatewayId", gateway_id}, {"bootId", boot_id}, {"epoch", epoch}}
        .dump();
}

std::string offline_payload(const std::string& gateway_id, const std::string& boot_id,
                            int64_t epoch, bool clean) {
    return nlohmann::json{{"state", "offline"},
                          {"gatewayId", gateway_id},
                          {"bootId", boot_id},
                          {"epoch", epoch},
                          {"clean", clean}}
        .dump();
}

}  // namespace outpost::publish
