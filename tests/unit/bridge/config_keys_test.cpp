// outpost-bridge's table of configuration keys (bridge/config_keys.h) is the
// one source of --help and the reference page; these tests hold the parser
// to it (tests/support/config_key_checks.h). A mapping rule's keys are rows
// "mapping[].key".
#include "bridge/config_keys.h"

#include <catch2/catch.hpp>

#include "bridge/config.h"
#include "config_key_checks.h"

using namespace outpost::bridge;
namespace test = outpost::test;

namespace {

// Every key of the table at its default (required keys at their example);
// mqtt.uri is ssl://, as an mqtt.tls object needs.
nlohmann::json every_key() {
    nlohmann::json document = test::document_of_every_key(bridge_config_keys());
    document["mqtt"]["uri"] = "ssl://127.0.0.1:8883";
    return document;
}

}  // namespace

TEST_CASE("every key the parser reads is a row of the key table, and every row is read") {
    test::check_parser_reads_the_table<BridgeConfig>(parse_bridge_config, bridge_config_keys,
                                                     BridgeConfig{}, every_key());
}

TEST_CASE("a configuration of every key at its table default parses to those defaults") {
    test::check_document_parses_back<BridgeConfig>(parse_bridge_config, bridge_config_keys,
                                                   every_key());
}

TEST_CASE("every key of the table has help, and a default or, when required, an example") {
    test::check_rows_complete(bridge_config_keys());
}
