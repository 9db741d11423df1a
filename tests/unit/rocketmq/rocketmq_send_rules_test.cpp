// What the producer checks before sending and what each broker answer means.
#include <catch2/catch.hpp>
#include <chrono>
#include <set>
#include <string>

#include "rocketmq/properties.h"
#include "rocketmq/send_message.h"
#include "rocketmq/unique_id.h"
#include "rocketmq/validation.h"

using namespace outpost::rocketmq;
using outpost::StatusCode;

TEST_CASE("topic names follow the broker's pattern and length limit") {
    CHECK(validate_topic("outpost_alarms").is_ok());
    CHECK(validate_topic("%RETRY%group|x-1").is_ok());
    CHECK(validate_topic(std::string(127, 'a')).is_ok());
    CHECK(validate_topic(std::string(128, 'a')).code() == StatusCode::kInvalidArgument);
    CHECK_FALSE(validate_topic("").is_ok());
    CHECK_FALSE(validate_topic("site/1/alarm").is_ok());
    CHECK_FALSE(validate_topic("with space").is_ok());
}

TEST_CASE("bodies must hold 1 byte to 4 MiB") {
    CHECK_FALSE(validate_body("").is_ok());
    CHECK(validate_body(std::string(kMaxBodyBytes, 'x')).is_ok());
    CHECK(validate_body(std::string(kMaxBodyBytes + 1, 'x')).code() ==
          StatusCode::kInvalidArgument);
}

TEST_CASE("each broker answer maps to stored, retry or permanent") {
    CHECK(classify_send_response(0) == SendDisposition::kStored);
    CHECK(classify_send_response(10) == SendDisposition::kStored);
    CHECK(classify_send_response(11) == SendDisposition::kStored);
    CHECK(classify_send_response(12) == SendDisposition::kStored);
    CHECK(send_status_for(0) == SendStatus::kSendOk);
    CHECK(send_status_for(10) == SendStatus::kFlushDiskTimeout);
    CHECK(send_status_for(12) == SendStatus::kFlushSlaveTimeout);
    CHECK(send_status_for(11) == SendStatus::kSlaveNotAvailable);
    for (int code : {2, 14, 215, 1500}) {
        CHECK(classify_send_response(code) == SendDisposition::kRetryOtherBroker);
    }
    CHECK(classify_send_response(17) == SendDisposition::kRefreshRouteAndRetry);
    CHECK(classify_send_response(13) == SendDisposition::kPermanent);
    CHECK(classify_send_response(29) == SendDisposition::kPermanent);
}

TEST_CASE("a send request carries keys, tags, WAIT and UNIQ_KEY as properties") {
    OutgoingMessage message{"alarms", "critical", "evt-1", "{}", "dev-7", "ABC"};
    auto request = build_send_request("group", message, MessageQueue{"broker-a", 3}, 1234);
    REQUIRE(request.is_ok());
    CHECK(request->code == 10);
    CHECK(request->ext_fields.at("queueId") == "3");
    CHECK(request->ext_fields.at("producerGroup") == "group");
    CHECK(request->ext_fields.at("bornTimestamp") == "1234");
    auto properties = decode_properties(request->ext_fields.at("properties"));
    REQUIRE(properties.is_ok());
    CHECK(properties->at("KEYS") == "evt-1");
    CHECK(properties->at("TAGS") == "critical");
    CHECK(properties->at("WAIT") == "true");
    CHECK(properties->at("UNIQ_KEY") == "ABC");
    CHECK(request->body == "{}");
}

TEST_CASE("tags with a property separator make the send request fail") {
    OutgoingMessage message{"alarms", "bad\x01tag", "", "{}", "", "ABC"};
    auto request = build_send_request("group", message, MessageQueue{"b", 0}, 0);
    REQUIRE_FALSE(request.is_ok());
    CHECK(request.status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("unique ids are 32 hex digits and do not repeat") {
    UniqueIdGenerator ids;
    std::set<std::string> seen;
    int malformed = 0;
    const auto now = std::chrono::system_clock::now();
    for (int i = 0; i < 10000; ++i) {
        std::string id = ids.next(now);
        if (id.size() != 32 || id.find_first_not_of("0123456789ABCDEF") != std::string::npos) {
            ++malformed;
        }
        seen.insert(id);
    }
    CHECK(malformed == 0);
    CHECK(seen.size() == 10000);
}

// A 32-bit time_t (Debian 12 armhf) cannot hold this date: the id would
// carry the time into some other month.
TEST_CASE("unique ids carry the milliseconds since the month began, also after 2038") {
    UniqueIdGenerator ids;
    // 2040-03-05T01:02:03.456Z
    const std::chrono::system_clock::time_point when{std::chrono::milliseconds(2214522123456)};
    const std::string id = ids.next(when);
    // Bytes 10 to 13: (4 days + 1 h + 2 min + 3 s) * 1000 + 456 = 349323456 ms.
    CHECK(id.substr(20, 8) == "14D240C0");
}
