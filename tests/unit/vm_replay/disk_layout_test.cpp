// Evidence records on the data disk: what the guest writes is what the host
// reads back, and nothing else reads as a record.
#include "proof/vm/disk_layout.h"

#include <catch2/catch.hpp>
#include <cstring>

using namespace outpost::torture::vm;

namespace {
const uint8_t* bytes(const std::string& text) {
    return reinterpret_cast<const uint8_t*>(text.data());
}
}  // namespace

TEST_CASE("a record reads back as its number and line") {
    const std::string record = encode_record(41, "A v0w1c2 0193-id dev-1 7 0");
    REQUIRE(record.size() == kRecordBytes);
    const auto decoded = decode_record(bytes(record));
    REQUIRE(decoded);
    CHECK(decoded->number == 41);
    CHECK(decoded->line == "A v0w1c2 0193-id dev-1 7 0");
}

TEST_CASE("lines that do not fit one sector, or hold a newline, are refused") {
    CHECK(encode_record(1, std::string(481, 'x')).empty());
    CHECK(encode_record(1, "two\nlines").empty());
    CHECK(encode_record(1, std::string(480, 'x')).size() == kRecordBytes);
}

TEST_CASE("zeros, file system data and damaged records are not records") {
    const std::string zeros(kRecordBytes, '\0');
    CHECK_FALSE(decode_record(bytes(zeros)));
    std::string damaged = encode_record(3, "A x");
    damaged[5] = 'z';  // the number
    CHECK_FALSE(decode_record(bytes(damaged)));
    std::string unterminated(kRecordBytes, 'a');
    std::memcpy(unterminated.data(), "OPEV 1 ", 7);
    CHECK_FALSE(decode_record(bytes(unterminated)));
}
