// The checks that hold a program's configuration parser to its table of
// keys (common/config_keys.h), for outpostd's and outpost-bridge's unit
// tests: on a document holding every key of the table, the parser asks for
// every row's key and no other, and parses each key to the value the
// document gave it.
#ifndef OUTPOST_TESTS_CONFIG_KEY_CHECKS_H
#define OUTPOST_TESTS_CONFIG_KEY_CHECKS_H

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "common/config_keys.h"
#include "outpost/status.h"

namespace outpost::test {

// The member `path` names ("a.b"; "mapping[].tag": in the array's first
// object) inside `document`, created as null when missing.
inline nlohmann::json& member_at(nlohmann::json& document, const std::string& path) {
    nlohmann::json* at = &document;
    std::istringstream parts(path);
    for (std::string part; std::getline(parts, part, '.');) {
        if (part.size() > 2 && part.compare(part.size() - 2, 2, "[]") == 0) {
            at = &(*at)[part.substr(0, part.size() - 2)][0];
        } else {
            at = &(*at)[part];
        }
    }
    return *at;
}

inline bool is_section(const ConfigKey& key) {
    return key.type == ConfigKeyType::kObject || key.type == ConfigKeyType::kObjectList;
}

// Every section present (an array of objects with one object) and every key
// at its value in the table; a required key at its example.
inline nlohmann::json document_of_every_key(const ConfigKeys& keys) {
    nlohmann::json document = nlohmann::json::object();
    for (const ConfigKey& key : keys) {
        nlohmann::json& member = member_at(document, key.path);
        if (key.type == ConfigKeyType::kObject) {
            if (member.is_null()) member = nlohmann::json::object();
        } else if (key.type == ConfigKeyType::kObjectList) {
            if (member.is_null()) member = nlohmann::json::array({nlohmann::json::object()});
        } else {
            member = key.required ? key.example : key.value;
        }
    }
    return document;
}

// The members of `one` not in `other`, one per line ("" when none).
inline std::string missing_from(const std::set<std::string>& one,
                                const std::set<std::string>& other) {
    std::string lines;
    for (const std::string& path : one) {
        if (other.count(path) == 0) lines += path + "\n";
    }
    return lines;
}

template <typename Config>
using ConfigParser = Result<Config> (*)(const std::string&, std::set<std::string>*);
template <typename Config>
using ConfigTable = ConfigKeys (*)(const Config&);

// The keys `parse` asked for in `document` (every key of `table(defaults)`)
// are exactly the table's rows, and `document` is accepted.
template <typename Config>
void check_parser_reads_the_table(ConfigParser<Config> parse, ConfigTable<Config> table,
                                  const Config& defaults, const nlohmann::json& document) {
    std::set<std::string> read;
    Result<Config> config = parse(document.dump(), &read);
    std::set<std::string> rows;
    for (const ConfigKey& key : table(defaults)) rows.insert(key.path);
    const std::string read_by_the_parser_not_in_the_table = missing_from(read, rows);
    const std::string in_the_table_never_read = missing_from(rows, read);
    CHECK(read_by_the_parser_not_in_the_table == "");
    CHECK(in_the_table_never_read == "");
    INFO((config.is_ok() ? "" : config.status().message()));
    CHECK(config.is_ok());
}

// Every key of `document` parses to the value it holds there, as the table
// of the parsed configuration shows it.
template <typename Config>
void check_document_parses_back(ConfigParser<Config> parse, ConfigTable<Config> table,
                                nlohmann::json document) {
    Result<Config> config = parse(document.dump(), nullptr);
    INFO((config.is_ok() ? "" : config.status().message()));
    REQUIRE(config.is_ok());
    for (const ConfigKey& key : table(*config)) {
        if (is_section(key)) continue;
        INFO(key.path);
        CHECK(key.value == member_at(document, key.path));
    }
}

// Every row has help, and a default or, when required, an example.
inline void check_rows_complete(const ConfigKeys& keys) {
    for (const ConfigKey& key : keys) {
        INFO(key.path);
        CHECK_FALSE(key.help.empty());
        if (is_section(key)) continue;
        CHECK(key.required == !key.example.is_null());
        if (!key.required) CHECK_FALSE(key.value.is_null());
    }
}

}  // namespace outpost::test

#endif  // OUTPOST_TESTS_CONFIG_KEY_CHECKS_H
