// schema/event.schema.json and the code agree, by two proofs:
//   1. the file is, byte for byte, what render_json_schema() makes of the
//      contract's table: the table is the one definition, and an edit to the
//      file alone (or to the table alone) fails here;
//   2. a JSON Schema evaluator written from the specification
//      (json_schema_evaluator.h) reading the file, and the code reading the
//      table (check_envelope), give the same verdict on a corpus: the golden
//      envelopes, every field set to values at and across each bound, of
//      every type and character class, and random envelopes built from
//      those. This is what proves that the rendered keywords mean what the
//      code does (a pattern and its hand-written check, code points and
//      bytes, int64 bounds).
// The one designed difference, integers written as 1.0, is asserted as such.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <variant>

#include "common/envelope_contract.h"
#include "common/envelope_document.h"
#include "envelope_json_schema.h"
#include "common/strict_json.h"
#include "date_time_samples.h"
#include "golden_cases.h"
#include "json_schema_evaluator.h"
#include "tap_text.h"

using namespace outpost;
using namespace outpost::testing;
using envelope::FieldRule;
using envelope::FieldType;
using nlohmann::json;

namespace {

const std::string kSchemaPath = std::string(OUTPOST_SOURCE_ROOT) + "/schema/event.schema.json";

// Values to put in a field: every JSON type, integers at and across the
// int64 ends, integral floats, strings of every character class.
std::vector<json> general_values() {
    std::vector<json> values = {
        nullptr,
        true,
        false,
        json::array(),
        json::object(),
        json::array({1}),
        0,
        1,
        -1,
        2,
        7,
        64,
        1.0,
        1.5,
        -0.5,
        0.0,
        -0.0,
        1e3,
        1e308,
        -1e308,
        std::numeric_limits<std::int64_t>::max(),
        std::numeric_limits<std::int64_t>::min(),
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1,
        std::numeric_limits<std::uint64_t>::max(),
        9223372036854775807.0,
        std::numeric_limits<double>::max(),
        std::numeric_limits<double>::lowest(),
        std::numeric_limits<double>::denorm_min(),
        "",
        "x",
        "A",
        "a-b",
        "a b",
        "a/b",
        "ALARM_RAISED",
        "alarm_raised",
        "_X",
        "X1_",
        "1X",
        "major",
        "MAJOR",
        "critical",
        "urgent",
        "0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b",
        "0190A1B2-C3D4-7E5F-8A6B-7C8D9E0F1A2B",
        "0190a1b2-c3d4-4e5f-8a6b-7c8d9e0f1a2b",
        "0190a1b2-c3d4-7e5f-ca6b-7c8d9e0f1a2b",
        "0190a1b2c3d47e5f8a6b7c8d9e0f1a2b",
        std::string("a\0b", 3),
        "a\x01",
        "\x1f",
        "a\x7f",
        "a\xc2\x80",
        "a\xc2\x9f",
        "a\xc2\xa0"
        "b",
        "a\tb",
        "a\nb",
        "a\rb",
        "\xe2\x80\xa8",
        "\xef\xbb\xbf"
        "a",
        "\xf0\x9f\x94\xa5",
    };
    for (const auto* dates : {&good_date_times(), &bad_date_times()}) {
        values.insert(values.end(), dates->begin(), dates->end());
    }
    return values;
}

// Strings at and across the length bounds of `rule`, of one- to four-byte
// characters, so that a bound counted in bytes instead of code points shows.
std::vector<json> length_values(const FieldRule& rule) {
    std::vector<json> values;
    if (rule.type != FieldType::kString || rule.max_length == 0) return values;
    const std::string first = rule.text == envelope::TextRule::kEventType ? "A" : "a";
    const std::string fill = rule.text == envelope::TextRule::kEventType    ? "Z"
                             : rule.text == envelope::TextRule::kIdentifier ? "z"
                                                                            : "\xc3\xa9";
    const std::vector<std::size_t> lengths = {rule.min_length, rule.min_length + 1,
                                              rule.max_length - 1, rule.max_length,
                                              rule.max_length + 1};
    for (std::size_t length : lengths) {
        if (length == 0) {
            values.push_back("");
            continue;
        }
        values.push_back(first + repeat(fill, static_cast<int>(length - 1)));
        values.push_back(first + repeat("\xf0\x9f\x94\xa5", static_cast<int>(length - 1)));
        values.push_back(repeat(first, static_cast<int>(length)));
    }
    return values;
}

struct Verdicts {
    std::optional<std::string> code;
    std::optional<std::string> schema;
};

// True when `document` holds an integer field written as an integral float
// (1.0): the contract refuses it, JSON Schema's "integer" does not.
bool has_float_integer(const json& document) {
    if (!document.is_object()) return false;
    for (const FieldRule& rule : envelope::envelope_fields()) {
        auto member = document.find(rule.name);
        if (rule.type == FieldType::kInteger && member != document.end() &&
            member->is_number_float() && std::isfinite(member->get<double>()) &&
            std::floor(member->get<double>()) == member->get<double>()) {
            return true;
        }
    }
    return false;
}

class Agreement {
  public:
    explicit Agreement(const JsonSchemaEvaluator& evaluator) : evaluator_(evaluator) {}

    // Serialises `document` to JSON text and reads it back the strict way,
    // as the bridge does, then asks both sides.
    void check(const json& document) {
        std::string text;
        try {
            text = document.dump();
        } catch (const json::exception&) {
            return;  // not representable as JSON text (invalid UTF-8 in a string)
        }
        auto parsed = parse_strict_json(text, envelope::kMaxDepth);
        if (!std::holds_alternative<json>(parsed)) return;
        const json& read = std::get<json>(parsed);
        const std::optional<std::string> code = envelope::check_envelope(read);
        const std::optional<std::string> schema = evaluator_.validate(read);
        ++checked_;
        if (has_float_integer(read)) {
            INFO(one_line("document " + text.substr(0, 300)));
            REQUIRE(code.has_value());  // the designed difference: refused by the code
            ++float_integers_;
            return;
        }
        code ? ++refused_ : ++accepted_;
        if (code.has_value() != schema.has_value()) {
            INFO(one_line("document " + text.substr(0, 300) + " code: " + code.value_or("valid") +
                          " schema: " + schema.value_or("valid")));
            CHECK(code.has_value() == schema.has_value());
        }
    }

    int checked_ = 0, accepted_ = 0, refused_ = 0, float_integers_ = 0;

  private:
    const JsonSchemaEvaluator& evaluator_;
};

json golden_document(const GoldenCase& golden) {
    return json::parse(golden.build());
}

}  // namespace

TEST_CASE("schema/event.schema.json is exactly the contract's table rendered") {
    const std::string difference =
        difference_from_file(kSchemaPath, envelope::render_json_schema(),
                             std::string(OUTPOST_BUILD_DIR) + "/event.schema.json");
    if (!difference.empty()) {
        FAIL(difference +
             " . The table in src/common/envelope_contract.cpp is the definition: "
             "change it, then copy the built file over the schema file.");
    }
}

TEST_CASE("the evaluator follows JSON Schema, so that agreeing with it means something") {
    JsonSchemaEvaluator evaluator(json::parse(R"({
        "type": "object", "additionalProperties": false, "required": ["n"],
        "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 9223372036854775807},
                       "s": {"type": "string", "pattern": "^[^\\u0000-\\u001f]*$", "maxLength": 2},
                       "t": {"type": "string", "format": "date-time"}}})"));
    CHECK_FALSE(evaluator.validate(json::parse(R"({"n": 1})")));
    CHECK_FALSE(evaluator.validate(json::parse(R"({"n": 1.0})")));  // JSON Schema: an integer
    CHECK(evaluator.validate(json::parse(R"({"n": 1.5})")));
    CHECK(evaluator.validate(json::parse(R"({"n": 0})")));
    CHECK(evaluator.validate(json::parse(R"({"n": 9223372036854775808})")));
    CHECK(evaluator.validate(json::parse(R"({"n": 1e308})")));
    CHECK(evaluator.validate(json::parse(R"({})")));
    CHECK(evaluator.validate(json::parse(R"({"n": 1, "x": 2})")));
    CHECK_FALSE(evaluator.validate(json::parse("{\"n\": 1, \"s\": \"\xc3\xa9\xc3\xa9\"}")));
    CHECK(evaluator.validate(json::parse(R"({"n": 1, "s": "abc"})")));
    CHECK(evaluator.validate(json::parse(R"({"n": 1, "s": "\u0000"})")));
    CHECK(evaluator.validate(json::parse(R"({"n": 1, "s": "\n"})")));
    CHECK_FALSE(evaluator.validate(json::parse(R"({"n": 1, "t": "2024-02-29T00:00:00Z"})")));
    CHECK(evaluator.validate(json::parse(R"({"n": 1, "t": "2023-02-29T00:00:00Z"})")));
    CHECK_THROWS(JsonSchemaEvaluator(json::parse(R"({"minItems": 1})")).validate(json::array()));
}

TEST_CASE("the schema file and the code give the same verdict on every envelope of the corpus") {
    const JsonSchemaEvaluator evaluator(json::parse(read_whole_file(kSchemaPath)));
    Agreement agreement(evaluator);
    std::vector<json> bases;
    for (const GoldenCase& golden : golden_cases()) bases.push_back(golden_document(golden));
    for (const json& base : bases) {
        CHECK_FALSE(envelope::check_envelope(base));
        CHECK_FALSE(evaluator.validate(base));
        agreement.check(base);
    }

    // Every field, of the envelope and of its payload, set to each value or
    // removed, in an alarm envelope and in an application event's.
    const json alarm = bases.front();
    const json event = bases.back();
    for (const json& base : {alarm, event}) {
        for (const auto* fields : {&envelope::envelope_fields(), &envelope::payload_fields()}) {
            for (const FieldRule& rule : *fields) {
                const bool in_payload = fields == &envelope::payload_fields();
                auto set = [&](const std::optional<json>& value) {
                    json document = base;
                    json& object = in_payload ? document["payload"] : document;
                    if (value) {
                        object[rule.name] = *value;
                    } else {
                        object.erase(rule.name);
                    }
                    agreement.check(document);
                };
                set(std::nullopt);
                for (const json& value : general_values()) set(value);
                for (const json& value : length_values(rule)) set(value);
            }
        }
        json extra = base;
        extra["firmware"] = "1.2";
        agreement.check(extra);
        extra = base;
        extra["payload"]["firmware"] = "1.2";
        agreement.check(extra);
        agreement.check(json::array({base}));
    }

    // Random envelopes: each field drawn from its golden values and the
    // general ones, several fields wrong at once.
    std::mt19937 random(7);
    const std::vector<json> values = general_values();
    for (int round = 0; round < 4000; ++round) {
        json document = bases[random() % bases.size()];
        const int changes = static_cast<int>(random() % 4);
        for (int change = 0; change < changes; ++change) {
            const auto& fields =
                random() % 3 == 0 ? envelope::payload_fields() : envelope::envelope_fields();
            const FieldRule& rule = fields[random() % fields.size()];
            json& object = &fields == &envelope::payload_fields() && document["payload"].is_object()
                               ? document["payload"]
                               : document;
            object[rule.name] = values[random() % values.size()];
        }
        agreement.check(document);
    }
    INFO("checked " << agreement.checked_ << " accepted " << agreement.accepted_ << " refused "
                    << agreement.refused_ << " integral floats " << agreement.float_integers_);
    CHECK(agreement.accepted_ > 500);
    CHECK(agreement.refused_ > 2000);
    CHECK(agreement.float_integers_ > 10);
}
