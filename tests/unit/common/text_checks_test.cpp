// The text rules both ends apply to untrusted input (store and bridge).
#include "common/text_checks.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "common/envelope_contract.h"
#include "tap_text.h"

using namespace outpost;
using outpost::testing::one_line;

namespace {

// What the envelope contract says about `type` as an eventType; empty if it passes.
std::optional<std::string> event_type_problem(const std::string& type) {
    return envelope::check_text(envelope::rule(envelope::Field::kEventType), type);
}

}  // namespace

TEST_CASE("an identifier is 1 to 64 letters, digits, dots, underscores or dashes") {
    CHECK(is_valid_identifier("pump-1"));
    CHECK(is_valid_identifier("gw.north_07"));
    CHECK(is_valid_identifier("A"));
    CHECK(is_valid_identifier(std::string(64, 'x')));
    CHECK_FALSE(is_valid_identifier(""));
    CHECK_FALSE(is_valid_identifier(std::string(65, 'x')));
    // Characters that would break an MQTT topic level or a RocketMQ key.
    for (const char* bad : {"a b", "a/b", "a+b", "a#b", "a\tb", "a\nb", "a:b", "a*b"}) {
        INFO("'" << one_line(bad) << "'");
        CHECK_FALSE(is_valid_identifier(bad));
    }
    CHECK_FALSE(is_valid_identifier("pump\xC3\xA9"));  // non-ASCII letter
    CHECK_FALSE(is_valid_identifier(std::string("a\0b", 3)));
}

TEST_CASE("an eventType is an upper-case letter then up to 63 upper-case letters, digits or _") {
    CHECK_FALSE(event_type_problem("ALARM_RAISED").has_value());
    CHECK_FALSE(event_type_problem("A").has_value());
    CHECK_FALSE(event_type_problem("V2_READING").has_value());
    CHECK_FALSE(event_type_problem("A" + std::string(63, 'B')).has_value());
    CHECK(event_type_problem("A" + std::string(64, 'B')).has_value());
    CHECK(event_type_problem("").has_value());
    CHECK(event_type_problem("alarm_raised").has_value());
    CHECK(event_type_problem("_ALARM").has_value());
    CHECK(event_type_problem("2ALARM").has_value());
    CHECK(event_type_problem("ALARM-RAISED").has_value());
    CHECK(event_type_problem("ALARM RAISED").has_value());
}

TEST_CASE("well-formed UTF-8 of every sequence length is accepted") {
    CHECK(is_valid_utf8(""));
    CHECK(is_valid_utf8("plain ASCII"));
    CHECK(is_valid_utf8("\xC3\xA9"));          // é, 2 bytes
    CHECK(is_valid_utf8("\xE2\x82\xAC"));      // €, 3 bytes
    CHECK(is_valid_utf8("\xF0\x9F\x94\xA5"));  // 🔥, 4 bytes
    CHECK(is_valid_utf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF, the last code point
    CHECK(is_valid_utf8("\xEF\xBF\xBF"));      // U+FFFF
    CHECK(is_valid_utf8(std::string("nul\0inside", 10)));
}

TEST_CASE("malformed UTF-8 is refused: truncated, overlong, surrogate, beyond U+10FFFF, stray") {
    CHECK_FALSE(is_valid_utf8("\xC3"));                  // truncated 2-byte sequence
    CHECK_FALSE(is_valid_utf8("\xE2\x82"));              // truncated 3-byte sequence
    CHECK_FALSE(is_valid_utf8("ok\xF0\x9F\x94"));        // truncated at the end
    CHECK_FALSE(is_valid_utf8("\xC0\xAF"));              // overlong '/'
    CHECK_FALSE(is_valid_utf8("\xE0\x80\xAF"));          // overlong '/', 3 bytes
    CHECK_FALSE(is_valid_utf8("\xF0\x80\x80\xAF"));      // overlong '/', 4 bytes
    CHECK_FALSE(is_valid_utf8("\xED\xA0\x80"));          // U+D800, a surrogate
    CHECK_FALSE(is_valid_utf8("\xED\xBF\xBF"));          // U+DFFF, a surrogate
    CHECK_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));      // U+110000
    CHECK_FALSE(is_valid_utf8("\x80"));                  // a continuation byte alone
    CHECK_FALSE(is_valid_utf8("\xC3\x28"));              // lead byte, then no continuation
    CHECK_FALSE(is_valid_utf8("\xF8\x88\x80\x80\x80"));  // 5-byte form
    CHECK_FALSE(is_valid_utf8("\xFF"));
}

TEST_CASE("an event id must be a lower-case UUID of version 7 and the RFC variant") {
    CHECK(is_lowercase_uuid_v7("0189a5f2-7c3e-7abc-8def-0123456789ab"));
    CHECK(is_lowercase_uuid_v7("0189a5f2-7c3e-7abc-bdef-0123456789ab"));
    CHECK_FALSE(is_lowercase_uuid_v7("0189A5F2-7C3E-7ABC-8DEF-0123456789AB"));  // upper case
    CHECK_FALSE(is_lowercase_uuid_v7("0189a5f2-7c3e-4abc-8def-0123456789ab"));  // version 4
    CHECK_FALSE(is_lowercase_uuid_v7("0189a5f2-7c3e-7abc-cdef-0123456789ab"));  // variant 110x
    CHECK_FALSE(is_lowercase_uuid_v7("0189a5f2-7c3e-7abc-7def-0123456789ab"));  // variant 0xxx
    CHECK_FALSE(is_lowercase_uuid_v7("0189a5f2-7c3e-7abc-8def-0123456789a"));   // short
    CHECK_FALSE(is_lowercase_uuid_v7("0189a5f2x7c3e-7abc-8def-0123456789ab"));  // no dash
    CHECK_FALSE(is_lowercase_uuid_v7(""));
}
