// outpostd's table of configuration keys (daemon/config_keys.h) is the one
// source of --help and the reference page; these tests hold the parser to
// it (tests/support/config_key_checks.h).
#include "daemon/config_keys.h"

#include <catch2/catch.hpp>

#include "config_key_checks.h"
#include "daemon/config.h"

using namespace outpost::daemon;
namespace test = outpost::test;

namespace {

// Every key of the table at its default (required keys at their example);
// broker.uri is ssl://, as a broker.tls object needs.
nlohmann::json every_key() {
    nlohmann::json document = test::document_of_every_key(daemon_config_keys());
    document["broker"]["uri"] = "ssl://127.0.0.1:8883";
    return document;
}

}  // namespace

TEST_CASE("every key the parser reads is a row of the key table, and every row is read") {
    test::check_parser_reads_the_table<DaemonConfig>(parse_daemon_config, daemon_config_keys,
                                                     daemon_config_defaults(), every_key());
}

TEST_CASE("a configuration of every key at its table default parses to those defaults") {
    test::check_document_parses_back<DaemonConfig>(parse_daemon_config, daemon_config_keys,
                                                   every_key());
}

TEST_CASE("every key of the table has help, and a default or, when required, an example") {
    test::check_rows_complete(daemon_config_keys());
}
