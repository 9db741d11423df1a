// The batch request's body and header, read back byte by byte here (not
// with our encoder's own code) against the layout of RocketMQ's
// MessageDecoder.encodeMessage and SendMessageRequestHeaderV2.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "rocketmq/codes.h"
#include "rocketmq/crc32.h"
#include "rocketmq/message_batch.h"
#include "rocketmq/properties.h"

using namespace outpost::rocketmq;
using outpost::StatusCode;

namespace {

// Reads big-endian integers off the front of a byte string.
class Reader {
  public:
    explicit Reader(std::string_view bytes) : bytes_(bytes) {}
    std::uint32_t u32() {
        REQUIRE(bytes_.size() >= 4);
        std::uint32_t value = 0;
        for (int i = 0; i < 4; ++i) value = (value << 8) | static_cast<unsigned char>(bytes_[i]);
        bytes_.remove_prefix(4);
        return value;
    }
    std::uint16_t u16() {
        REQUIRE(bytes_.size() >= 2);
        const auto value = static_cast<std::uint16_t>((static_cast<unsigned char>(bytes_[0]) << 8) |
                                                      static_cast<unsigned char>(bytes_[1]));
        bytes_.remove_prefix(2);
        return value;
    }
    std::string take(std::size_t size) {
        REQUIRE(bytes_.size() >= size);
        std::string out(bytes_.substr(0, size));
        bytes_.remove_prefix(size);
        return out;
    }
    std::size_t left() const { return bytes_.size(); }

  private:
    std::string_view bytes_;
};

struct Entry {
    std::uint32_t total_size = 0;
    std::uint32_t magic = 0;
    std::uint32_t body_crc = 0;
    std::uint32_t flag = 0;
    std::string body;
    std::map<std::string, std::string> properties;
};

Entry read_entry(Reader& reader) {
    const std::size_t before = reader.left();
    Entry entry;
    entry.total_size = reader.u32();
    entry.magic = reader.u32();
    entry.body_crc = reader.u32();
    entry.flag = reader.u32();
    entry.body = reader.take(reader.u32());
    const std::string properties = reader.take(reader.u16());
    auto decoded = decode_properties(properties);
    REQUIRE(decoded.is_ok());
    entry.properties = *decoded;
    CHECK(entry.total_size == before - reader.left());  // the size counts itself and all fields
    return entry;
}

OutgoingMessage message(const std::string& tags, const std::string& keys, const std::string& body,
                        const std::string& unique_key) {
    return OutgoingMessage{"outpost_alarms", tags, keys, body, "gw-7", unique_key, {}};
}

const MessageQueue kQueue{"broker-a", 3};

}  // namespace

TEST_CASE("CRC-32 gives the standard check value, and the body CRC is its 31-bit form") {
    CHECK(crc32("123456789") == 0xCBF43926u);
    CHECK(crc32("") == 0u);
    CHECK(rocketmq_body_crc("123456789") == 0x4BF43926);
    CHECK(rocketmq_body_crc("hello") == 0x3610A686);  // top bit already clear
}

TEST_CASE("a batched message is laid out as size, magic, body CRC, flag, body, properties") {
    OutgoingMessage alarm = message("critical", "evt-1 evt-1b", "hello", "UNIQ0001");
    alarm.user_properties = {{"site", "north"}};
    std::string body;
    REQUIRE(append_batch_entry(alarm, &body).is_ok());

    Reader reader(body);
    const Entry entry = read_entry(reader);
    CHECK(reader.left() == 0);
    CHECK(entry.magic == 0u);
    CHECK(entry.body_crc == 0x3610A686u);
    CHECK(entry.flag == 0u);
    CHECK(entry.body == "hello");
    CHECK(entry.properties == std::map<std::string, std::string>{{"KEYS", "evt-1 evt-1b"},
                                                                 {"TAGS", "critical"},
                                                                 {"UNIQ_KEY", "UNIQ0001"},
                                                                 {"WAIT", "true"},
                                                                 {"__SHARDINGKEY", "gw-7"},
                                                                 {"site", "north"}});
    CHECK(entry.total_size ==
          kBatchEntryOverhead + 5 + encode_properties(entry.properties)->size());
}

TEST_CASE("a failed entry leaves the body as it was and names the reason") {
    std::string body = "prefix";
    OutgoingMessage bad = message("a\x01tag", "k", "x", "U");
    CHECK(append_batch_entry(bad, &body).code() == StatusCode::kInvalidArgument);
    OutgoingMessage reserved = message("t", "k", "x", "U");
    reserved.user_properties = {{"DELAY", "3"}};
    CHECK(append_batch_entry(reserved, &body).code() == StatusCode::kInvalidArgument);
    OutgoingMessage huge = message("t", std::string(kMaxBatchEntryProperties, 'k'), "x", "U");
    const outpost::Status too_long = append_batch_entry(huge, &body);
    CHECK(too_long.code() == StatusCode::kInvalidArgument);
    CHECK(too_long.message().find("32767") != std::string::npos);
    CHECK(body == "prefix");
}

TEST_CASE("a batch request is code 320 with a V2 header and its entries in batch order") {
    const std::vector<OutgoingMessage> messages = {
        message("t0", "k0", "first body", "U0"),
        message("t1", "k1", std::string(300, 'b'), "U1"),
        message("", "", "third", "U2"),
    };
    auto request =
        build_batch_request("group-1", "outpost_alarms", messages, kQueue, 1700000000123, 1u << 20);
    REQUIRE(request.is_ok());
    CHECK(request->code == kRequestSendBatchMessage);
    CHECK(request->code == 320);
    CHECK(request->version == kRemotingVersion);
    const std::map<std::string, std::string> expected_fields = {{"a", "group-1"},
                                                                {"b", "outpost_alarms"},
                                                                {"c", "TBW102"},
                                                                {"d", "4"},
                                                                {"e", "3"},
                                                                {"f", "0"},
                                                                {"g", "1700000000123"},
                                                                {"h", "0"},
                                                                {"i", "WAIT\x01true\x02"},
                                                                {"j", "0"},
                                                                {"k", "false"},
                                                                {"m", "true"},
                                                                {"n", "broker-a"}};
    CHECK(request->ext_fields == expected_fields);

    Reader reader(request->body);
    for (std::size_t i = 0; i < messages.size(); ++i) {
        INFO("entry " << i);
        const Entry entry = read_entry(reader);
        CHECK(entry.body == messages[i].body);
        CHECK(entry.body_crc == static_cast<std::uint32_t>(rocketmq_body_crc(messages[i].body)));
        CHECK(entry.properties.at("UNIQ_KEY") == messages[i].unique_key);
        CHECK(entry.properties.count("TAGS") == (messages[i].tags.empty() ? 0u : 1u));
        CHECK(entry.properties.count("KEYS") == (messages[i].keys.empty() ? 0u : 1u));
    }
    CHECK(reader.left() == 0);
}

TEST_CASE("placing a batch on another queue changes only queue id, time and broker name") {
    auto request = build_batch_request("g", "outpost_alarms", {message("t", "k", "x", "U")}, kQueue,
                                       1, 1u << 20);
    REQUIRE(request.is_ok());
    const RemotingCommand placed = place_batch_request(*request, MessageQueue{"broker-b", 0}, 2);
    CHECK(placed.body == request->body);
    CHECK(placed.ext_fields.at("e") == "0");
    CHECK(placed.ext_fields.at("g") == "2");
    CHECK(placed.ext_fields.at("n") == "broker-b");
    RemotingCommand back = placed;
    back.ext_fields["e"] = "3";
    back.ext_fields["g"] = "1";
    back.ext_fields["n"] = "broker-a";
    CHECK(back.ext_fields == request->ext_fields);
}

TEST_CASE("an empty batch, a mixed-topic batch and one over the byte bound are refused") {
    CHECK(build_batch_request("g", "outpost_alarms", {}, kQueue, 1, 1000).status().code() ==
          StatusCode::kInvalidArgument);

    OutgoingMessage other = message("t", "k", "x", "U1");
    other.topic = "other_topic";
    auto mixed = build_batch_request("g", "outpost_alarms", {message("t", "k", "x", "U0"), other},
                                     kQueue, 1, 1000);
    CHECK(mixed.status().code() == StatusCode::kInvalidArgument);
    CHECK(mixed.status().message().find("batch message 1") != std::string::npos);

    // Two entries of exactly 500 bytes fit 1000 bytes; a third byte of body does not.
    OutgoingMessage sized = message("t", "k", "", "U");
    const std::size_t properties = encode_message_properties(sized)->size();
    sized.body = std::string(500 - kBatchEntryOverhead - properties, 'x');
    CHECK(build_batch_request("g", "outpost_alarms", {sized, sized}, kQueue, 1, 1000).is_ok());
    OutgoingMessage bigger = sized;
    bigger.body += 'x';
    auto over = build_batch_request("g", "outpost_alarms", {sized, bigger}, kQueue, 1, 1000);
    CHECK(over.status().code() == StatusCode::kInvalidArgument);
    CHECK(over.status().message().find("1000 bytes") != std::string::npos);
}

TEST_CASE("the broker's comma-separated storage ids split into one id per message") {
    CHECK(split_batch_message_ids("A1,B2,C3") == std::vector<std::string>{"A1", "B2", "C3"});
    CHECK(split_batch_message_ids("A1") == std::vector<std::string>{"A1"});
    CHECK(split_batch_message_ids("").empty());
    CHECK(split_batch_message_ids("A1,,B2,") == std::vector<std::string>{"A1", "B2"});
}
