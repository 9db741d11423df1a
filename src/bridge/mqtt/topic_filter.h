// MQTT topic names and filters (MQTT v5 section 4.7): what the mapping rules
// and the identity checks need, without a broker.
#ifndef OUTPOST_BRIDGE_MQTT_TOPIC_FILTER_H
#define OUTPOST_BRIDGE_MQTT_TOPIC_FILTER_H

#include <string>
#include <vector>

namespace outpost::bridge {

// The levels of a topic name or filter: "a/b//c" -> {"a", "b", "", "c"}.
std::vector<std::string> topic_levels(const std::string& topic);

// True when `filter` is a well-formed subscription filter: not empty, '+'
// and '#' only as whole levels, '#' only last, no NUL, and not a shared
// subscription ("$share/..." is built by the bridge from shared_group).
bool is_valid_topic_filter(const std::string& filter);

// True when the topic name `topic` matches `filter`. A topic starting with
// '$' is not matched by a filter starting with a wildcard.
// Precondition: is_valid_topic_filter(filter).
bool topic_matches_filter(const std::string& filter, const std::string& topic);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_TOPIC_FILTER_H
