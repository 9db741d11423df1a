// UUIDv7 event ids: layout (RFC 9562), format, and order within a process.
#include "common/uuid.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/text_checks.h"

using namespace outpost;

namespace {

// make_uuid_v7 remembers the last millisecond it used for the whole process:
// each test takes milliseconds from a range no earlier test has touched.
int64_t fresh_ms() {
    static int64_t next = 1'900'000'000'000;
    next += 1'000'000;
    return next;
}

std::string hex_digits(const std::string& uuid) {
    std::string digits;
    for (char c : uuid) {
        if (c != '-') digits += c;
    }
    return digits;
}

// The 48-bit millisecond timestamp at the front of a UUIDv7.
int64_t timestamp_of(const std::string& uuid) {
    return static_cast<int64_t>(std::stoull(hex_digits(uuid).substr(0, 12), nullptr, 16));
}

// The 12-bit sub-millisecond counter after the version nibble.
int counter_of(const std::string& uuid) {
    return std::stoi(hex_digits(uuid).substr(13, 3), nullptr, 16);
}

}  // namespace

TEST_CASE("an event id is a lower-case canonical UUID of version 7 and the RFC variant") {
    const std::string id = make_uuid_v7(fresh_ms());
    INFO(id);
    CHECK(id.size() == 36);
    CHECK(is_canonical_uuid(id));
    CHECK(is_lowercase_uuid_v7(id));
    CHECK(id[14] == '7');                                          // version
    CHECK(std::string("89ab").find(id[19]) != std::string::npos);  // variant 10xx
}

TEST_CASE("an event id starts with the milliseconds it was made at") {
    const int64_t ms = fresh_ms();
    const std::string id = make_uuid_v7(ms);
    CHECK(timestamp_of(id) == ms);
    CHECK(counter_of(id) == 0);
}

TEST_CASE("ids made within one millisecond strictly increase and differ in their random bits") {
    const int64_t ms = fresh_ms();
    std::vector<std::string> ids;
    for (int i = 0; i < 100; ++i) ids.push_back(make_uuid_v7(ms));
    std::set<std::string> random_parts;
    for (size_t i = 0; i < ids.size(); ++i) {
        CHECK(timestamp_of(ids[i]) == ms);
        CHECK(counter_of(ids[i]) == static_cast<int>(i));
        if (i > 0) CHECK(ids[i - 1] < ids[i]);
        random_parts.insert(hex_digits(ids[i]).substr(17));
    }
    CHECK(random_parts.size() == ids.size());
}

TEST_CASE("an id of a later millisecond sorts after every id of an earlier one") {
    const int64_t ms = fresh_ms();
    std::string last_early;
    for (int i = 0; i < 50; ++i) last_early = make_uuid_v7(ms);
    const std::string later = make_uuid_v7(ms + 1);
    CHECK(last_early < later);
    CHECK(timestamp_of(later) == ms + 1);
    CHECK(counter_of(later) == 0);  // the counter restarts in a new millisecond
}

TEST_CASE("ids keep increasing when the wall clock jumps backwards") {
    const int64_t ms = fresh_ms();
    const std::string before = make_uuid_v7(ms);
    const std::string after_jump = make_uuid_v7(ms - 60'000);  // NTP stepped the clock back
    const std::string at_zero = make_uuid_v7(-5);              // a clock before 1970
    CHECK(before < after_jump);
    CHECK(after_jump < at_zero);
    CHECK(timestamp_of(at_zero) == ms);  // still the highest millisecond seen
    CHECK(is_lowercase_uuid_v7(at_zero));
}

TEST_CASE("more than 4096 ids in one millisecond borrow the next millisecond and stay ordered") {
    const int64_t ms = fresh_ms();
    std::string previous;
    for (int i = 0; i < 4096; ++i) {
        std::string id = make_uuid_v7(ms);
        if (!previous.empty()) REQUIRE(previous < id);
        previous = id;
    }
    CHECK(counter_of(previous) == 0xFFF);
    const std::string overflow = make_uuid_v7(ms);
    CHECK(previous < overflow);
    CHECK(timestamp_of(overflow) == ms + 1);
    CHECK(counter_of(overflow) == 0);
}

TEST_CASE("is_canonical_uuid accepts the 8-4-4-4-12 hex form of any version and case only") {
    CHECK(is_canonical_uuid("0189a5f2-7c3e-7abc-8def-0123456789ab"));
    CHECK(is_canonical_uuid("0189A5F2-7C3E-4ABC-8DEF-0123456789AB"));
    CHECK_FALSE(is_canonical_uuid(""));
    CHECK_FALSE(is_canonical_uuid("0189a5f2-7c3e-7abc-8def-0123456789a"));    // short
    CHECK_FALSE(is_canonical_uuid("0189a5f2-7c3e-7abc-8def-0123456789abc"));  // long
    CHECK_FALSE(is_canonical_uuid("0189a5f27c3e-7abc-8def-0123456789ab-"));   // dashes moved
    CHECK_FALSE(is_canonical_uuid("0189a5f2-7c3e-7abc-8def-0123456789ag"));   // not hex
}
