#include "bridge/mqtt/v5/topic_aliases.h"

#include "bridge/mqtt/v5/reason_codes.h"

namespace outpost::bridge::mqtt5 {

PacketCheck TopicAliases::resolve(Publish* publish) {
    if (!publish->properties.topic_alias) {
        if (publish->topic.empty()) {
            return PacketError{kProtocolError, "PUBLISH with neither topic name nor Topic Alias"};
        }
        return std::nullopt;
    }
    const uint16_t alias = *publish->properties.topic_alias;
    if (alias == 0 || alias > topics_.size()) {
        return PacketError{kTopicAliasInvalid, "PUBLISH Topic Alias " + std::to_string(alias) +
                                                   " is outside 1.." +
                                                   std::to_string(topics_.size()) +
                                                   " (the Topic Alias Maximum sent in CONNECT)"};
    }
    std::string& known = topics_[alias - 1];
    if (!publish->topic.empty()) {
        known = publish->topic;
        return std::nullopt;
    }
    if (known.empty()) {
        return PacketError{kProtocolError, "PUBLISH uses Topic Alias " + std::to_string(alias) +
                                               ", never set on this connection"};
    }
    publish->topic = known;
    return std::nullopt;
}

}  // namespace outpost::bridge::mqtt5
