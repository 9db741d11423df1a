// outpost-bridge's configuration keys, one row each (common/config_keys.h):
// what --help prints, what docs/reference/outpost-bridge.md documents and
// what parse_bridge_config reads; the unit test of the table holds the
// parser to it, tests/docs/check_reference.py the page.
#ifndef OUTPOST_BRIDGE_CONFIG_KEYS_H
#define OUTPOST_BRIDGE_CONFIG_KEYS_H

#include "bridge/config.h"
#include "common/config_keys.h"

namespace outpost::bridge {

// Every key, with its value in `shown` (a mapping rule's keys: those of its
// first rule, or of MappingRule{} when it has none): with BridgeConfig{},
// the table of defaults --help prints.
ConfigKeys bridge_config_keys(const BridgeConfig& shown = BridgeConfig{});

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_CONFIG_KEYS_H
