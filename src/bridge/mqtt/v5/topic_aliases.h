// Topic Aliases the broker assigns on this connection (OASIS MQTT 5.0,
// 3.3.2.3.4): a PUBLISH with a topic name and an alias sets the alias; one
// with an empty topic name uses it. Aliases live for one network
// connection and exist only if the subscriber offered a Topic Alias Maximum
// above 0 in CONNECT.
#ifndef OUTPOST_BRIDGE_MQTT_V5_TOPIC_ALIASES_H
#define OUTPOST_BRIDGE_MQTT_V5_TOPIC_ALIASES_H

#include <cstdint>
#include <string>
#include <vector>

#include "bridge/mqtt/v5/packet_types.h"
#include "bridge/mqtt/v5/publish_packet.h"

namespace outpost::bridge::mqtt5 {

class TopicAliases final {
  public:
    // `maximum`: the Topic Alias Maximum sent in CONNECT (0: none allowed).
    explicit TopicAliases(uint16_t maximum) : topics_(maximum) {}

    // Gives `publish` its full topic name, recording or applying its alias.
    // Errors (Topic Alias invalid): alias 0 or above the maximum; (Protocol
    // Error): an empty topic name without an alias, or with an alias never
    // set on this connection.
    PacketCheck resolve(Publish* publish);

  private:
    std::vector<std::string> topics_;  // alias N at N-1; empty: not set
};

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_TOPIC_ALIASES_H
