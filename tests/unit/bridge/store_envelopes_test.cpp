// The two ends of the envelope contract agree: everything the store builds,
// the bridge accepts and can tag; and on the fields the application passes,
// the store refuses exactly what the bridge would quarantine. Fed with every
// golden case (tests/unit/envelope/golden_cases.h) and with random alarms
// and events drawn across and beyond every rule.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <variant>

#include "bridge/envelope_check.h"
#include "bridge/rocketmq/tag_template.h"
#include "common/text_checks.h"
#include "common/uuid.h"
#include "golden_cases.h"
#include "store/envelope.h"
#include "tap_text.h"

using namespace outpost;
using namespace outpost::bridge;
using namespace outpost::testing;
using nlohmann::json;

namespace {

std::variant<CheckedEnvelope, Rejection> check(const std::string& topic,
                                               const std::string& payload) {
    InboundMessage message;
    message.topic = topic;
    message.payload = payload;
    return check_inbound(message, LimitsConfig{}, IdentityConfig{});
}

std::string describe(const std::variant<CheckedEnvelope, Rejection>& checked) {
    if (std::holds_alternative<CheckedEnvelope>(checked)) return "accepted";
    const Rejection& rejection = std::get<Rejection>(checked);
    return std::string(quarantine_reason_name(rejection.reason)) + ": " + rejection.detail;
}

// Counts verdicts; a case where the store and the bridge disagree fails
// with both reasons and the envelope.
struct Tally {
    int accepted = 0;
    int refused = 0;

    void judge(const Status& store, const std::string& topic, const std::string& built) {
        const auto checked = check(topic, built);
        const bool bridge_accepts = std::holds_alternative<CheckedEnvelope>(checked);
        if (store.is_ok() != bridge_accepts) {
            INFO(one_line("store: " + store.to_string() + " bridge: " + describe(checked) +
                          " envelope: " + built.substr(0, 400)));
            CHECK(store.is_ok() == bridge_accepts);
        }
        store.is_ok() ? ++accepted : ++refused;
    }
};

const char* const kTemplates[] = {"${payload.severity}", "${eventType}", "${payload.alarmType}",
                                  "sev-${payload.severity}-${deviceId}",
                                  "${gatewayId}.${payload.unit}.${seq}"};

// Draws text from characters of every class the rules distinguish.
class TextSource {
  public:
    explicit TextSource(std::uint32_t seed) : random_(seed) {}

    std::uint32_t below(std::uint32_t bound) { return random_() % bound; }
    bool one_in(std::uint32_t n) { return below(n) == 0; }

    // `length` characters of `plain`; one string in six has one character
    // of another class in a random place instead.
    std::string text(std::size_t length, const std::vector<std::string>& plain) {
        static const std::vector<std::string> kOdd = {std::string("\0", 1),
                                                      "\x01",
                                                      "\t",
                                                      "\n",
                                                      "\r",
                                                      "\x1b",
                                                      "\x7f",
                                                      "\xc2\x85",
                                                      "\xc2\x9f",
                                                      "\xc2\xa0",
                                                      "\xe2\x80\xa8",
                                                      "\"",
                                                      "\\",
                                                      "/",
                                                      " ",
                                                      "\xc3\xa9",
                                                      "\xe6\xb8\xa9",
                                                      "\xf0\x9f\x94\xa5",
                                                      "\xc3" /* truncated UTF-8 */};
        const std::size_t odd_at =
            one_in(6) ? below(static_cast<std::uint32_t>(length + 1)) : length;
        std::string out;
        for (std::size_t i = 0; i < length; ++i) {
            out += i == odd_at ? kOdd[below(static_cast<std::uint32_t>(kOdd.size()))]
                               : plain[below(static_cast<std::uint32_t>(plain.size()))];
        }
        return out;
    }

    // A length mostly within [0, max], sometimes at or just beyond it.
    std::size_t length(std::size_t max) {
        if (one_in(30)) return max + 1 + below(2);
        if (one_in(10)) return max - below(2);
        return below(static_cast<std::uint32_t>(max + 1));
    }

    std::int64_t int64() {
        std::int64_t value;
        const std::uint64_t bits = (static_cast<std::uint64_t>(random_()) << 32) | random_();
        std::memcpy(&value, &bits, sizeof value);
        return value;
    }

    double any_double() {
        switch (below(8)) {
            case 0:
                return std::numeric_limits<double>::max();
            case 1:
                return -std::numeric_limits<double>::denorm_min();
            case 2:
                return -0.0;
            case 3:
                return std::numeric_limits<double>::infinity();
            case 4:
                return std::numeric_limits<double>::quiet_NaN();
            case 5:
                return static_cast<double>(int64()) / 1000.0;
            default: {
                double value;
                const std::int64_t bits = int64();
                std::memcpy(&value, &bits, sizeof value);
                return value;
            }
        }
    }

  private:
    std::mt19937 random_;
};

const std::vector<std::string> kIdentifierChars = [] {
    std::vector<std::string> chars;
    for (char c : std::string("ABCXYZabcxyz0189._-")) chars.push_back(std::string(1, c));
    return chars;
}();
const std::vector<std::string> kEventTypeChars = {"A", "L", "R", "M", "_", "0", "9", "Z"};
const std::vector<std::string> kLabelChars = {
    "a", "Z", "0", "_", "-", ".", " ", "\xc3\xa9", "\xe6\xb8\xa9", "\xf0\x9f\x94\xa5"};

store::EnvelopeContext random_context(TextSource& source) {
    store::EnvelopeContext context;
    context.event_id = make_uuid_v7(source.int64() & 0xFFFFFFFFFFFF);
    context.gateway_id = source.text(1 + source.below(64), kIdentifierChars);
    context.gateway_id.erase(std::remove_if(context.gateway_id.begin(), context.gateway_id.end(),
                                            [](char c) { return !is_identifier_char(c); }),
                             context.gateway_id.end());
    if (context.gateway_id.empty()) context.gateway_id = "gw";
    context.seq = 1 + (source.int64() & std::numeric_limits<std::int64_t>::max()) %
                          std::numeric_limits<std::int64_t>::max();
    context.wall_ms = source.int64();
    context.boot_id = "boot-" + std::to_string(source.below(1000000));
    context.uptime_ms = source.int64() & std::numeric_limits<std::int64_t>::max();
    return context;
}

std::string event_type(TextSource& source) {
    if (source.one_in(3)) return source.one_in(2) ? "ALARM_RAISED" : "ALARM_CLEARED";
    // A leading letter, then 0 to 63 more: valid but where a rule is broken.
    const char* first = source.one_in(8) ? "_" : source.one_in(8) ? "a" : "E";
    return first + source.text(source.length(63), kEventTypeChars);
}

}  // namespace

TEST_CASE("every golden envelope the store builds passes the bridge's check and renders tags") {
    std::vector<TagTemplate> templates;
    for (const char* text : kTemplates) {
        auto compiled = TagTemplate::compile(text);
        REQUIRE(compiled.is_ok());
        templates.push_back(*compiled);
    }
    for (const GoldenCase& golden : golden_cases()) {
        INFO("case " << golden.name);
        const auto checked = check(golden.topic(), golden.build());
        INFO(one_line(describe(checked)));
        REQUIRE(std::holds_alternative<CheckedEnvelope>(checked));
        const CheckedEnvelope& envelope = std::get<CheckedEnvelope>(checked);
        CHECK(envelope.event_id == kGoldenEventId);
        CHECK(envelope.device_id == golden.device_id());
        CHECK(envelope.gateway_id == golden.context.gateway_id);
        for (const TagTemplate& tag_template : templates) {
            const std::string tag = tag_template.render(envelope.document);
            CHECK(tag.size() <= TagTemplate::kMaxTagLength);
            for (char c : tag) CHECK(is_tag_char(c));
        }
        CHECK(templates[1].render(envelope.document) == envelope.event_type);
        if (golden.alarm) {
            CHECK(templates[0].render(envelope.document) == severity_name(golden.alarm->severity));
        }
    }
}

TEST_CASE("on random alarms, the store refuses exactly what the bridge would quarantine") {
    TextSource source(20240607);
    Tally tally;
    for (int round = 0; round < 20000; ++round) {
        Alarm alarm;
        alarm.device_id = source.text(source.length(64), kIdentifierChars);
        alarm.alarm_type = source.text(source.length(64), kLabelChars);
        alarm.event_type = event_type(source);
        alarm.severity = static_cast<Severity>(source.below(5));
        if (source.one_in(4)) alarm.value = source.any_double();
        alarm.unit = source.one_in(2) ? "" : source.text(source.length(32), kLabelChars);
        alarm.text = source.one_in(2) ? "" : source.text(source.length(1024), kLabelChars);
        if (source.one_in(3)) alarm.text += source.one_in(2) ? "\n" : "\t";
        const store::EnvelopeContext context = random_context(source);

        const std::string topic = "outpost/" + context.gateway_id + "/alarm/" + alarm.device_id;
        tally.judge(store::validate_alarm(alarm), topic, store::alarm_envelope(alarm, context));
    }
    INFO("accepted " << tally.accepted << ", refused " << tally.refused);
    CHECK(tally.accepted > 2000);
    CHECK(tally.refused > 2000);
}

namespace {

// A random JSON value nested at most `depth` more levels, its strings of
// every character class (JSON text escapes the control characters).
json random_value(TextSource& source, int depth) {
    switch (source.below(depth > 0 ? 7 : 4)) {
        case 0:
            return source.int64();
        case 1: {
            const double value = source.any_double();
            return std::isfinite(value) ? json(value) : json(nullptr);
        }
        case 2: {
            std::string text = source.text(source.below(12), kLabelChars);
            if (text.find('\xc3') != std::string::npos && !is_valid_utf8(text)) text = "x";
            return text;
        }
        case 3:
            return source.one_in(2) ? json(true) : json(nullptr);
        case 4: {
            json array = json::array();
            for (std::uint32_t i = source.below(4); i > 0; --i) {
                array.push_back(random_value(source, depth - 1));
            }
            return array;
        }
        default: {
            json object = json::object();
            for (std::uint32_t i = source.below(4); i > 0; --i) {
                object["k" + std::to_string(source.below(10))] = random_value(source, depth - 1);
            }
            return object;
        }
    }
}

// A payload object, sometimes with alarm members of good or bad values, and
// sometimes nested to the limit or one beyond.
json random_payload(TextSource& source) {
    json payload = json::object();
    const int depth = source.one_in(20) ? 14 + static_cast<int>(source.below(3)) : 3;
    if (source.one_in(20)) {
        json* node = &payload;
        for (int i = 1; i < depth; ++i) node = &((*node)["deep"] = json::object());
    }
    for (std::uint32_t i = source.below(5); i > 0; --i) {
        payload["m" + std::to_string(i)] = random_value(source, 2);
    }
    auto member = [&](const json& good) {
        return source.one_in(6) ? random_value(source, 0) : good;
    };
    if (source.one_in(3)) payload["alarmType"] = member("LEAK");
    if (source.one_in(3)) payload["severity"] = member("minor");
    if (source.one_in(3)) payload["value"] = member(source.int64() / 1000.0);
    if (source.one_in(3)) {
        std::string text = source.text(source.length(32), kLabelChars);
        payload["unit"] = is_valid_utf8(text) ? text : "u";
    }
    if (source.one_in(3)) {
        std::string text = source.text(source.length(1024), kLabelChars);
        payload["text"] = is_valid_utf8(text) ? text : "t";
    }
    return payload;
}

}  // namespace

TEST_CASE("on random events, the store refuses exactly what the bridge would quarantine") {
    TextSource source(99);
    Tally tally;
    for (int round = 0; round < 5000; ++round) {
        Event event;
        event.event_type = event_type(source);
        event.device_id = source.text(source.length(64), kIdentifierChars);
        event.aggregate_type = source.text(source.length(64), kLabelChars);
        event.aggregate_id = source.text(source.length(256), kLabelChars);
        event.payload_json = random_payload(source).dump();
        const store::EnvelopeContext context = random_context(source);

        const Status verdict = store::validate_event(event);
        const std::string topic = "outpost/" + context.gateway_id + "/event/" + event.device_id;
        // Only a validated event may be built (the builder's precondition),
        // so a refused one is judged on the envelope a laxer store would
        // have built: the same fields, the payload as nlohmann reads it.
        std::string built;
        try {
            built = store::event_envelope(event, context);
        } catch (const json::exception&) {
            CHECK_FALSE(verdict.is_ok());  // malformed UTF-8: no JSON text can carry it
            ++tally.refused;
            continue;
        }
        tally.judge(verdict, topic, built);
    }
    INFO("accepted " << tally.accepted << ", refused " << tally.refused);
    CHECK(tally.accepted > 500);
    CHECK(tally.refused > 500);
}

TEST_CASE("what only the strict parse sees is refused by the store, never built") {
    // A repeated key or a byte-order mark cannot survive into an envelope
    // (the builder re-serialises the payload), so the store must refuse it
    // itself: otherwise it would store a payload other than the one given.
    Event event{"VALVE_OPENED", "valve-1", "valve", "v-17", "", ""};
    event.payload_json = R"({"position":1,"position":2})";
    CHECK_FALSE(store::validate_event(event).is_ok());
    event.payload_json = "\xEF\xBB\xBF{\"position\":1}";
    CHECK_FALSE(store::validate_event(event).is_ok());
    event.payload_json = R"({"position":1})";
    CHECK(store::validate_event(event).is_ok());
}
