// The one translation unit that holds Catch2's main(); every test binary links it.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <catch2/catch_reporter_tap.hpp>
