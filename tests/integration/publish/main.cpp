// main() for the publisher integration tests: without mosquitto the whole
// binary reports SKIP instead of failing.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <catch2/catch_reporter_tap.hpp>

#include "mosquitto_fixture.h"

int main(int argc, char* argv[]) {
    int exit_code = 0;
    if (outpost::testing::skip_without_mosquitto(argc, argv, &exit_code)) return exit_code;
    return Catch::Session().run(argc, argv);
}
