// main() for the tests of our MQTT v5 subscriber against a real broker:
// TAP SKIP without mosquitto, or on the mochi-mqtt run without its binary
// (OUTPOST_MOCHI_BROKER).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <catch2/catch_reporter_tap.hpp>
#include <cstdio>
#include <string>

#include "mqtt5_harness.h"

int main(int argc, char** argv) {
    int exit_code = 0;
    if (outpost::testing::on_mochi()) {
        if (outpost::testing::mochi_broker_program().empty()) {
            std::printf(
                "1..0 # SKIP OUTPOST_MOCHI_BROKER is not set (scripts/mqtt-broker.sh path)\n");
            return 0;
        }
    } else if (outpost::testing::skip_without_mosquitto(argc, argv, &exit_code)) {
        return exit_code;
    }
    return Catch::Session().run(argc, argv);
}
