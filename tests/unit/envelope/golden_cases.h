// The fixed alarms, events and contexts whose envelope bytes are pinned in
// tests/unit/envelope/golden/<name>.json. Edge values on purpose: negative,
// fractional, huge and tiny values, unicode and escapes, empty optional
// fields, maximum lengths, int64 extremes, wall clocks at 1970, before it,
// past 2038 (32-bit time_t), at 9999 and beyond.
//
// Used by the golden test (the bytes), the bridge's acceptance test (the
// bridge takes every one) and the schema agreement test (its corpus).
#ifndef OUTPOST_TESTS_ENVELOPE_GOLDEN_CASES_H
#define OUTPOST_TESTS_ENVELOPE_GOLDEN_CASES_H

#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "outpost/alarm.h"
#include "outpost/event.h"
#include "store/envelope.h"
#include "tap_text.h"

namespace outpost::testing {

struct GoldenCase {
    std::string name;            // golden/<name>.json
    std::optional<Alarm> alarm;  // exactly one of alarm and event
    std::optional<Event> event;
    store::EnvelopeContext context;
    // True when a real store can be brought to build this envelope (seq 1,
    // values a clock can give): the golden test then records it and reads
    // it back, through SQLite, as the publisher does.
    bool through_store = true;

    std::string build() const {
        return alarm ? store::alarm_envelope(*alarm, context)
                     : store::event_envelope(*event, context);
    }
    const std::string& device_id() const { return alarm ? alarm->device_id : event->device_id; }
    // The topic the publisher uses (outpost/<gatewayId>/<alarm|event>/<deviceId>).
    std::string topic() const {
        return "outpost/" + context.gateway_id + (alarm ? "/alarm/" : "/event/") + device_id();
    }
};

constexpr const char* kGoldenEventId = "0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b";

inline store::EnvelopeContext golden_context() {
    store::EnvelopeContext context;
    context.event_id = kGoldenEventId;
    context.gateway_id = "gw-1";
    context.seq = 1;
    context.wall_ms = 1'700'000'000'000;  // 2023-11-14T22:13:20.000Z
    context.boot_id = "11111111-2222-3333-4444-555555555555";
    context.uptime_ms = 60'000;
    return context;
}

inline Alarm golden_alarm() {
    Alarm alarm;
    alarm.device_id = "pump-1";
    alarm.alarm_type = "OVER_TEMPERATURE";
    alarm.severity = Severity::kCritical;
    alarm.value = 97.5;
    alarm.unit = "degC";
    alarm.text = "bearing temperature above limit";
    return alarm;
}

// The bytes of the file at `path` ("" when it cannot be read), for the
// tests that compare with checked-in files.
inline std::string read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Empty when `actual` is the content of the checked-in file `path`; else
// where they first differ, both sides around that byte, and a diff command,
// on one line. `actual` is then written to `actual_path` for that diff.
inline std::string difference_from_file(const std::string& path, const std::string& actual,
                                        const std::string& actual_path) {
    const std::string expected = read_whole_file(path);
    if (expected == actual) return "";
    std::ofstream(actual_path, std::ios::binary) << actual;
    std::size_t at = 0;
    while (at < expected.size() && at < actual.size() && expected[at] == actual[at]) ++at;
    const std::size_t from = at > 40 ? at - 40 : 0;
    return one_line(path + " differs at byte " + std::to_string(at) +
                    (expected.empty() ? " (missing or empty)" : "") + ": file ..." +
                    expected.substr(from, 80) + "... built ..." + actual.substr(from, 80) +
                    "... Compare: diff -u " + path + " " + actual_path);
}

inline std::string repeat(const std::string& unit, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += unit;
    return out;
}

inline std::vector<GoldenCase> golden_cases() {
    std::vector<GoldenCase> cases;
    auto alarm_case = [&](const std::string& name, Alarm alarm,
                          store::EnvelopeContext context = golden_context()) {
        GoldenCase c{name, std::move(alarm), std::nullopt, std::move(context)};
        c.through_store = c.context.seq == 1;
        cases.push_back(std::move(c));
    };
    auto with_value = [](double value, Severity severity = Severity::kMajor) {
        Alarm alarm = golden_alarm();
        alarm.value = value;
        alarm.severity = severity;
        return alarm;
    };
    auto at_wall = [](std::int64_t wall_ms, std::int64_t uptime_ms) {
        store::EnvelopeContext context = golden_context();
        context.wall_ms = wall_ms;
        context.uptime_ms = uptime_ms;
        return context;
    };

    alarm_case("alarm_typical", golden_alarm());
    Alarm bare = golden_alarm();
    bare.event_type = "ALARM_CLEARED";
    bare.severity = Severity::kInfo;
    bare.value.reset();
    bare.unit.clear();
    bare.text.clear();
    alarm_case("alarm_optional_fields_empty", bare);
    alarm_case("alarm_value_negative_fraction", with_value(-273.15, Severity::kMinor));
    alarm_case("alarm_value_integral", with_value(100.0, Severity::kWarning));
    alarm_case("alarm_value_negative_zero", with_value(-0.0));
    alarm_case("alarm_value_not_exact_in_binary", with_value(0.1 + 0.2));
    alarm_case("alarm_value_tiny_subnormal", with_value(std::numeric_limits<double>::denorm_min()));
    alarm_case("alarm_value_largest_double", with_value(std::numeric_limits<double>::max()));
    alarm_case("alarm_value_beyond_2_53", with_value(9007199254740993.0));
    alarm_case("alarm_value_exponent", with_value(1.5e-7));

    Alarm unicode = golden_alarm();
    unicode.alarm_type =
        "\xC3\x9C"
        "berhitzung";  // Überhitzung
    unicode.unit =
        "\xC2\xB0"
        "C";  // °C
    unicode.text =
        "\xE6\xB8\xA9\xE5\xBA\xA6\xE8\xBF\x87\xE9\xAB\x98 \xF0\x9F\x94\xA5 "
        "\"quoted\" back\\slash\nline two\ttabbed \xC2\xA0nbsp";
    alarm_case("alarm_unicode_and_escapes", unicode);

    Alarm longest = golden_alarm();
    longest.device_id = std::string(64, 'd');
    longest.alarm_type = repeat("\xC3\xA9", 64);      // é: 64 characters, 128 bytes
    longest.unit = repeat("\xC2\xB5", 32);            // µ
    longest.text = repeat("\xF0\x9F\x94\xA5", 1024);  // 1024 characters, 4096 bytes
    store::EnvelopeContext longest_context = golden_context();
    longest_context.gateway_id = std::string(64, 'g');
    longest_context.boot_id = std::string(64, 'b');
    alarm_case("alarm_max_lengths", longest, longest_context);

    store::EnvelopeContext extremes = golden_context();
    extremes.seq = std::numeric_limits<std::int64_t>::max();
    extremes.uptime_ms = std::numeric_limits<std::int64_t>::max();
    alarm_case("alarm_max_integers", golden_alarm(), extremes);

    alarm_case("alarm_wall_1970", golden_alarm(), at_wall(0, 0));
    alarm_case("alarm_wall_before_1970", golden_alarm(), at_wall(-1, 5));
    alarm_case("alarm_wall_leap_day", golden_alarm(), at_wall(1'709'210'096'789, 7));
    alarm_case("alarm_wall_past_2038", golden_alarm(), at_wall(2'147'483'648'000, 7));
    alarm_case("alarm_wall_last_of_9999", golden_alarm(), at_wall(253'402'300'799'999, 7));
    alarm_case("alarm_wall_beyond_9999_clamped", golden_alarm(),
               at_wall(std::numeric_limits<std::int64_t>::max(), 7));
    alarm_case("alarm_wall_int64_min_clamped", golden_alarm(),
               at_wall(std::numeric_limits<std::int64_t>::min(), 7));

    auto event_case = [&](const std::string& name, const std::string& payload_json,
                          const std::string& aggregate_id = "v-17") {
        Event event{"VALVE_OPENED", "valve-1", "valve", aggregate_id, payload_json, ""};
        cases.push_back(GoldenCase{name, std::nullopt, event, golden_context()});
    };
    event_case("event_typical", R"({"position":42,"operator":"ana"})");
    event_case("event_payload_numbers",
               R"({"int":1,"float":1.0,"neg":-0.5,"big":1e300,"u64":18446744073709551615,)"
               R"("i64min":-9223372036854775808,"third":0.3333333333333333,"exp":1.5e-7,)"
               R"("beyond_u64":123456789012345678901234567890,"zero":-0.0})");
    event_case("event_payload_unicode_and_nesting",
               "{\"note\":\"\xC3\xA4\\n\\t\\\"\\\\\\/ \xF0\x9F\x94\xA5 \\u0001 \\u2028\","
               "\"nested\":{\"list\":[1,[2,[3]],{}],\"empty\":{}},\"flag\":true,\"none\":null}");
    event_case("event_empty_payload_longest_aggregate", "{}", repeat("\xE6\xB8\xA9", 256));
    event_case("event_payload_with_alarm_members",
               R"({"alarmType":"LEAK","severity":"major","value":0.25,"unit":"l/min",)"
               R"("text":"drip\nfrom valve"})");
    return cases;
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_ENVELOPE_GOLDEN_CASES_H
