// The MQTT v5 data representations our subscriber reads (OASIS MQTT 5.0,
// 1.5 and 2.2.2): what the specification calls malformed is refused, with
// the field named.
#include <catch2/catch.hpp>
#include <string>

#include "bridge/mqtt/v5/properties.h"
#include "bridge/mqtt/v5/utf8_check.h"
#include "bridge/mqtt/v5/wire_reader.h"
#include "bridge/mqtt/v5/wire_writer.h"

using namespace outpost::bridge::mqtt5;

namespace {

std::string bytes(std::initializer_list<int> values) {
    std::string out;
    for (int value : values) out.push_back(static_cast<char>(value));
    return out;
}

VbiState decode(const std::string& in, uint32_t* value) {
    std::size_t used = 0;
    return decode_variable_byte_integer(in, value, &used);
}

}  // namespace

TEST_CASE("Variable Byte Integers round-trip at every length boundary") {
    for (uint32_t value :
         {0u, 127u, 128u, 16383u, 16384u, 2097151u, 2097152u, kMaxVariableByteInteger}) {
        std::string encoded;
        append_variable_byte_integer(value, &encoded);
        uint32_t decoded = 1;
        std::size_t used = 0;
        REQUIRE(decode_variable_byte_integer(encoded, &decoded, &used) == VbiState::kComplete);
        CHECK(decoded == value);
        CHECK(used == encoded.size());
    }
}

TEST_CASE("a Variable Byte Integer of five bytes or not in its shortest form is malformed") {
    uint32_t value = 0;
    CHECK(decode(bytes({0xFF, 0xFF, 0xFF, 0xFF, 0x01}), &value) == VbiState::kMalformed);
    CHECK(decode(bytes({0x80, 0x00}), &value) == VbiState::kMalformed);
    CHECK(decode(bytes({0xFF, 0x80, 0x00}), &value) == VbiState::kMalformed);
    CHECK(decode(bytes({0xFF, 0xFF}), &value) == VbiState::kNeedMore);
}

TEST_CASE(
    "MQTT strings refuse U+0000, surrogates, overlong forms, truncation and code points above "
    "U+10FFFF") {
    std::string why;
    CHECK(check_mqtt_utf8("outpost/gw-1/alarm", &why));
    CHECK(check_mqtt_utf8("\xC3\xA9t\xC3\xA9/\xE6\xB8\xA9\xE5\xBA\xA6/\xF0\x9F\x94\xA5", &why));
    CHECK_FALSE(check_mqtt_utf8(std::string("a\0b", 3), &why));
    CHECK(why == "U+0000 (not allowed in MQTT strings) at byte 1");
    CHECK_FALSE(check_mqtt_utf8("\xED\xA0\x80", &why));  // U+D800
    CHECK(why.find("surrogate") != std::string::npos);
    CHECK_FALSE(check_mqtt_utf8("\xC0\x80", &why));  // overlong U+0000
    CHECK(why.find("overlong") != std::string::npos);
    CHECK_FALSE(check_mqtt_utf8("\xE0\x80\xAF", &why));      // overlong '/'
    CHECK_FALSE(check_mqtt_utf8("\xF4\x90\x80\x80", &why));  // U+110000
    CHECK_FALSE(check_mqtt_utf8("ab\xE6\xB8", &why));
    CHECK(why.find("truncated") != std::string::npos);
    CHECK_FALSE(check_mqtt_utf8("\x80", &why));
}

TEST_CASE("a string whose length runs past the packet is refused with the field named") {
    const std::string packet = bytes({0x00, 0x05, 'a', 'b'});
    WireReader reader(packet, "PUBLISH");
    reader.utf8_string("topic name");
    REQUIRE(reader.failed());
    CHECK(reader.error().find("PUBLISH topic name: the packet ends inside it") == 0);
}

TEST_CASE("properties given twice, not allowed in the packet, or out of range are refused") {
    {
        const std::string packet = bytes({0x06, 0x21, 0x00, 0x0A, 0x21, 0x00, 0x0A});
        WireReader reader(packet, "CONNACK");
        Properties properties;
        decode_properties(&reader, PropertyContext::kConnack, &properties);
        CHECK(reader.error().find("Receive Maximum: given twice") != std::string::npos);
    }
    {
        const std::string packet = bytes({0x03, 0x23, 0x00, 0x01});  // Topic Alias in CONNACK
        WireReader reader(packet, "CONNACK");
        Properties properties;
        decode_properties(&reader, PropertyContext::kConnack, &properties);
        CHECK(reader.error().find("0x23 is not allowed in this packet") != std::string::npos);
    }
    {
        const std::string packet = bytes({0x03, 0x21, 0x00, 0x00});
        WireReader reader(packet, "CONNACK");
        Properties properties;
        decode_properties(&reader, PropertyContext::kConnack, &properties);
        CHECK(reader.error().find("Receive Maximum: must not be 0") != std::string::npos);
    }
    {
        const std::string packet =
            bytes({0x09, 0x26, 0x00, 0x01, 'k', 0x00, 0x01, 'v', 0x01, 0x01});
        WireReader reader(packet, "PUBLISH");
        Properties properties;
        decode_properties(&reader, PropertyContext::kPublish, &properties);
        CHECK_FALSE(reader.failed());
        CHECK(properties.user_properties.size() == 1);
        CHECK(properties.payload_format_indicator == 1);
    }
}
