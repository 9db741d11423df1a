// The gateway's retained presence at "outpost/<gatewayId>/status": "online"
// on every connect, "offline" as the will (the broker publishes it when the
// connection dies) and explicitly before a clean disconnect (which drops the
// will). JSON so that a reader can tell which boot and which lease spoke.
#ifndef OUTPOST_PUBLISH_PRESENCE_H
#define OUTPOST_PUBLISH_PRESENCE_H

#include <cstdint>
#include <string>

namespace outpost::publish {

std::string status_topic(const std::string& gateway_id);
// {"state":"online","gatewayId":...,"bootId":...,"epoch":N}
std::string online_payload(const std::string& gateway_id, const std::string& boot_id,
                           int64_t epoch);
// {"state":"offline",...}; `clean` false for the will (the gateway vanished).
std::string offline_payload(const std::string& gateway_id, const std::string& boot_id,
                            int64_t epoch, bool clean);

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_PRESENCE_H
