// The remoting frame codec round-trips commands and turns every malformed or
// hostile frame into an error value.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>

#include "rocketmq/frame.h"

namespace {

using outpost::StatusCode;
using outpost::rocketmq::decode_frame;
using outpost::rocketmq::encode_frame;
using outpost::rocketmq::RemotingCommand;

std::string be32(std::uint32_t value) {
    std::string out;
    for (int shift = 24; shift >= 0; shift -= 8) {
        out.push_back(static_cast<char>((value >> shift) & 0xFFu));
    }
    return out;
}

// A frame whose fields are exactly what the test says, true or not.
std::string raw_frame(std::uint32_t length, std::uint32_t header_word, const std::string& rest) {
    return be32(length) + be32(header_word) + rest;
}

std::string valid_frame(const std::string& header, const std::string& body) {
    return raw_frame(static_cast<std::uint32_t>(4 + header.size() + body.size()),
                     static_cast<std::uint32_t>(header.size()), header + body);
}

}  // namespace

TEST_CASE("an encoded command decodes to the same command") {
    RemotingCommand command;
    command.code = 10;
    command.version = 401;
    command.opaque = 77;
    command.flag = 0;
    command.remark = "r\xC3\xA9mark";
    command.ext_fields = {{"topic", "alarms"}, {"queueId", "3"}, {"properties", "KEYS\x01k\x02"}};
    command.body = std::string("binary\0body", 11);

    auto frame = encode_frame(command);
    REQUIRE(frame.is_ok());
    auto decoded = decode_frame(*frame);
    REQUIRE(decoded.is_ok());
    CHECK(decoded->code == 10);
    CHECK(decoded->version == 401);
    CHECK(decoded->opaque == 77);
    CHECK(decoded->language == "CPP");
    CHECK(decoded->remark == command.remark);
    CHECK(decoded->ext_fields == command.ext_fields);
    CHECK(decoded->body == command.body);
    CHECK_FALSE(decoded->is_response());
}

TEST_CASE("a frame starts with its big-endian length and the JSON header length") {
    RemotingCommand command;
    command.body = "abc";
    auto frame = encode_frame(command);
    REQUIRE(frame.is_ok());
    const auto* bytes = reinterpret_cast<const unsigned char*>(frame->data());
    std::uint32_t length = (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) |
                           (std::uint32_t{bytes[2]} << 8) | bytes[3];
    CHECK(length == frame->size() - 4);
    CHECK(bytes[4] == 0);  // serialize type JSON
    std::uint32_t header_length =
        (std::uint32_t{bytes[5]} << 16) | (std::uint32_t{bytes[6]} << 8) | bytes[7];
    CHECK(frame->substr(8 + header_length) == "abc");
    CHECK(frame->at(8) == '{');
}

TEST_CASE("a server response with integer extFields and null remark decodes") {
    const std::string header =
        R"({"code":0,"extFields":{"queueId":"1","queueOffset":5,"flagged":true},)"
        R"("flag":1,"language":"JAVA","opaque":9,"remark":null,"serializeTypeCurrentRPC":"JSON","version":479})";
    auto decoded = decode_frame(valid_frame(header, ""));
    REQUIRE(decoded.is_ok());
    CHECK(decoded->is_response());
    CHECK(decoded->ext_fields.at("queueOffset") == "5");
    CHECK(decoded->ext_fields.at("flagged") == "true");
    CHECK(decoded->remark.empty());
}

TEST_CASE("malformed frames are errors, never crashes") {
    const std::string good = valid_frame(R"({"code":0})", "body");

    SECTION("truncated before the length field") {
        auto result = decode_frame(good.substr(0, 3));
        REQUIRE_FALSE(result.is_ok());
        CHECK(result.status().code() == StatusCode::kInvalidArgument);
    }
    SECTION("truncated body: the length field promises more than follows") {
        auto result = decode_frame(good.substr(0, good.size() - 1));
        REQUIRE_FALSE(result.is_ok());
        CHECK(result.status().message().find("length field says") != std::string::npos);
    }
    SECTION("the length field claims less than follows") {
        REQUIRE_FALSE(decode_frame(good + "extra").is_ok());
    }
    SECTION("a length below the header word") {
        REQUIRE_FALSE(decode_frame(be32(2) + "ab").is_ok());
    }
    SECTION("header length beyond the frame") {
        auto result = decode_frame(raw_frame(4 + 10, 1000, R"({"code":0})"));
        REQUIRE_FALSE(result.is_ok());
        CHECK(result.status().message().find("header length 1000") != std::string::npos);
    }
    SECTION("header that is not JSON") {
        auto result = decode_frame(valid_frame("{code:0", ""));
        REQUIRE_FALSE(result.is_ok());
        CHECK(result.status().message().find("not one valid JSON value") != std::string::npos);
    }
    SECTION("a header nested deeper than the limit, refused without building it") {
        const std::string deep = R"({"code":0,"remark":)" + std::string(500000, '[') +
                                 std::string(500000, ']') + "}";
        auto result = decode_frame(valid_frame(deep, ""));
        REQUIRE_FALSE(result.is_ok());
        CHECK(result.status().message().find("deeper than 16") != std::string::npos);
    }
    SECTION("header that is JSON but not an object") {
        REQUIRE_FALSE(decode_frame(valid_frame("[1,2]", "")).is_ok());
    }
    SECTION("header without a code") {
        REQUIRE_FALSE(decode_frame(valid_frame(R"({"opaque":1})", "")).is_ok());
    }
    SECTION("code that is not a 32-bit integer") {
        REQUIRE_FALSE(decode_frame(valid_frame(R"({"code":"ten"})", "")).is_ok());
        REQUIRE_FALSE(decode_frame(valid_frame(R"({"code":4294967296})", "")).is_ok());
        REQUIRE_FALSE(decode_frame(valid_frame(R"({"code":1.5})", "")).is_ok());
    }
    SECTION("extFields that is not an object of scalars") {
        REQUIRE_FALSE(decode_frame(valid_frame(R"({"code":0,"extFields":[1]})", "")).is_ok());
        REQUIRE_FALSE(
            decode_frame(valid_frame(R"({"code":0,"extFields":{"a":{"b":1}}})", "")).is_ok());
    }
    SECTION("the binary ROCKETMQ serialize type") {
        const std::string header = R"({"code":0})";
        auto result = decode_frame(raw_frame(static_cast<std::uint32_t>(4 + header.size()),
                                             (1u << 24) | header.size(), header));
        REQUIRE_FALSE(result.is_ok());
        CHECK(result.status().message().find("serialize type 1") != std::string::npos);
    }
    SECTION("a 20 MiB length is refused before anything is allocated") {
        auto result = decode_frame(raw_frame(20u * 1024u * 1024u, 10, "{}"));
        REQUIRE_FALSE(result.is_ok());
        CHECK(result.status().message().find("16 MiB") != std::string::npos);
        unsigned char prefix[4] = {0x01, 0x40, 0x00, 0x00};  // 20 MiB
        CHECK_FALSE(outpost::rocketmq::decode_frame_length(prefix).is_ok());
    }
}

TEST_CASE("encoding a frame over 16 MiB is refused") {
    RemotingCommand command;
    command.body.assign(outpost::rocketmq::kMaxFrameLength, 'x');
    auto frame = encode_frame(command);
    REQUIRE_FALSE(frame.is_ok());
    CHECK(frame.status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("encoding a header string that is not UTF-8 is an error, not an exception") {
    RemotingCommand command;
    command.ext_fields["keys"] = "\xFF\xFE";
    auto frame = encode_frame(command);
    REQUIRE_FALSE(frame.is_ok());
    CHECK(frame.status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("random bytes and mutated frames never escape as exceptions") {
    std::mt19937 random(12345);
    RemotingCommand command;
    command.code = 105;
    command.ext_fields = {{"topic", "t"}};
    command.body = "{}";
    const std::string good = *encode_frame(command);
    int escaped = 0;
    int accepted = 0;
    for (int round = 0; round < 5000; ++round) {
        std::string input = good;
        const int flips = 1 + static_cast<int>(random() % 4);
        for (int i = 0; i < flips; ++i) {
            input[random() % input.size()] = static_cast<char>(random() & 0xFF);
        }
        if (round % 3 == 0) {
            input.resize(random() % (input.size() + 1));
        }
        try {
            accepted += decode_frame(input).is_ok() ? 1 : 0;
        } catch (...) {
            ++escaped;
        }
    }
    CHECK(escaped == 0);
    CHECK(accepted < 5000);
}
