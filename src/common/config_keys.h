// A program's configuration keys as one table: each key's dotted path, its
// type, its default, its unit and a line of help. Each service builds its
// table from a configuration struct (daemon/config_keys.h,
// bridge/config_keys.h), so the defaults shown are the ones the parser
// starts from; --help prints the table as a JSON skeleton
// (render_config_skeleton), tests/docs/check_reference.py holds the
// reference pages to it, and each program's unit test holds its parser to
// it (every key read is a row, every row is read).
#ifndef OUTPOST_COMMON_CONFIG_KEYS_H
#define OUTPOST_COMMON_CONFIG_KEYS_H

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "outpost/mqtt_endpoint.h"

namespace outpost {

enum class ConfigKeyType {
    kBoolean,
    kInteger,
    kNumber,  // integer or fraction
    kString,
    kStringList,          // a non-empty array of strings
    kStringOrStringList,  // "a;b" or ["a", "b"]
    kObject,              // a section: its keys are rows of their own
    kObjectList,          // an array of objects; their keys are "path[].key" rows
};

// "boolean", "integer", ..., as the reference pages name them.
const char* config_key_type_name(ConfigKeyType type);

struct ConfigKey {
    // "publisher.window"; a member of the objects of an array: "mapping[].tag".
    std::string path;
    ConfigKeyType type = ConfigKeyType::kString;
    // A required key has no default; `example` is shown in its place.
    bool required = false;
    // The key's value in the configuration the table was built from (for
    // the table --help prints, the defaults). Null for sections.
    nlohmann::json value;
    nlohmann::json example;  // required keys only
    std::string unit;        // "ms", "bytes", "rows", ...; empty when none
    std::string help;        // what it does, in a sentence or two
};

using ConfigKeys = std::vector<ConfigKey>;

// The rows of a table, as the tables write them.
ConfigKey config_section(const std::string& path, bool required, const std::string& help);
ConfigKey config_key(const std::string& path, ConfigKeyType type, const nlohmann::json& value,
                     const std::string& unit, const std::string& help);
ConfigKey required_config_key(const std::string& path, ConfigKeyType type,
                              const nlohmann::json& value, const nlohmann::json& example,
                              const std::string& help);

// The rows of an MQTT endpoint in section `section` ("broker", "mqtt"), read
// by read_mqtt_endpoint (common/mqtt_endpoint_reader.h), with the values of
// `shown`. `fixed_identity`: uri and client_id are required (examples:
// MqttEndpoint's default uri and `example_client_id`). `client_id_help`
// says what the client id means to that program.
ConfigKeys mqtt_endpoint_keys(const std::string& section, const MqttEndpoint& shown,
                              bool fixed_identity, const std::string& client_id_help,
                              const std::string& example_client_id = "");

// The table as the JSON skeleton --help prints: one key per line, its
// default (or, marked "*", the example of a required key) and a "//"
// comment with its help and unit, wrapped at 100 columns. With the
// comments taken out it is valid JSON. Rows come in table order; a
// section's rows follow its own row.
std::string render_config_skeleton(const ConfigKeys& keys);

}  // namespace outpost

#endif  // OUTPOST_COMMON_CONFIG_KEYS_H
