// A JSON Schema (draft 2020-12) evaluator for the keywords
// schema/event.schema.json uses, written from the specification and
// independent of the envelope contract's code, so that the two can be
// compared. Any other keyword throws std::invalid_argument: the schema file
// cannot grow a rule that this evaluator, and so the agreement test, would
// silently ignore.
//
// Semantics kept from the specification on purpose, even where the contract
// is stricter: "integer" accepts 1.0 (a number with a zero fractional part),
// "minLength"/"maxLength" count code points, "pattern" is an ECMA-262
// regular expression matched anywhere (the schema anchors its own), and
// "format": "date-time" is asserted (RFC 3339 section 5.6).
#ifndef OUTPOST_TESTS_ENVELOPE_JSON_SCHEMA_EVALUATOR_H
#define OUTPOST_TESTS_ENVELOPE_JSON_SCHEMA_EVALUATOR_H

#include <time.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>

namespace outpost::testing {

class JsonSchemaEvaluator final {
  public:
    using json = nlohmann::json;

    explicit JsonSchemaEvaluator(json schema) : schema_(std::move(schema)) {}

    // nullopt when `instance` is valid; else where it failed and which
    // keyword ("/seq: maximum").
    std::optional<std::string> validate(const json& instance) const {
        return evaluate(schema_, instance, "");
    }

  private:
    json schema_;

    static std::u32string code_points(const std::string& utf8) {
        std::u32string out;
        for (std::size_t i = 0; i < utf8.size();) {
            const auto lead = static_cast<unsigned char>(utf8[i]);
            const int extra = lead < 0x80 ? 0 : lead < 0xE0 ? 1 : lead < 0xF0 ? 2 : 3;
            char32_t code = extra == 0 ? lead : lead & (0x3F >> extra);
            for (int k = 1; k <= extra && i + static_cast<std::size_t>(k) < utf8.size(); ++k) {
                code = (code << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
            }
            out += code;
            i += static_cast<std::size_t>(extra) + 1;
        }
        return out;
    }

    static std::wstring wide(const std::string& utf8) {
        static_assert(sizeof(wchar_t) == 4, "wchar_t holds a code point (Linux)");
        std::wstring out;
        for (char32_t c : code_points(utf8)) out += static_cast<wchar_t>(c);
        return out;
    }

    static bool is_integer(const json& value) {
        if (value.is_number_integer()) return true;
        if (!value.is_number_float()) return false;
        const double number = value.get<double>();
        return std::isfinite(number) && std::floor(number) == number;
    }

    // The JSON Schema type names of `value` (an integral float is both
    // "number" and "integer").
    static bool has_type(const json& value, const std::string& type) {
        if (type == "string") return value.is_string();
        if (type == "object") return value.is_object();
        if (type == "array") return value.is_array();
        if (type == "boolean") return value.is_boolean();
        if (type == "null") return value.is_null();
        if (type == "number") return value.is_number();
        if (type == "integer") return is_integer(value);
        throw std::invalid_argument("unknown type " + type);
    }

    // Exact comparison of two JSON numbers: -1, 0 or 1.
    static int compare(const json& a, const json& b) {
        if (a.is_number_float() || b.is_number_float()) {
            if (a.is_number_float() && b.is_number_float()) {
                const double x = a.get<double>(), y = b.get<double>();
                return x < y ? -1 : x > y ? 1 : 0;
            }
            if (a.is_number_float()) return compare_float(a.get<double>(), b);
            return -compare_float(b.get<double>(), a);
        }
        if (a.is_number_unsigned() && b.is_number_unsigned()) {
            const auto x = a.get<std::uint64_t>(), y = b.get<std::uint64_t>();
            return x < y ? -1 : x > y ? 1 : 0;
        }
        if (a.is_number_unsigned())
            return a.get<std::uint64_t>() > INT64_MAX ? 1 : compare_signed(a, b);
        if (b.is_number_unsigned())
            return b.get<std::uint64_t>() > INT64_MAX ? -1 : compare_signed(a, b);
        return compare_signed(a, b);
    }

    static int compare_signed(const json& a, const json& b) {
        const auto x = a.get<std::int64_t>(), y = b.get<std::int64_t>();
        return x < y ? -1 : x > y ? 1 : 0;
    }

    // A double against an integer, without rounding the integer to a double.
    static int compare_float(double x, const json& integer) {
        if (std::isnan(x)) throw std::invalid_argument("NaN");
        constexpr double kTwo63 = 9223372036854775808.0;
        if (integer.is_number_unsigned() && integer.get<std::uint64_t>() > INT64_MAX) {
            if (x < kTwo63) return -1;
            if (x >= 2 * kTwo63) return 1;
            const auto whole = static_cast<std::uint64_t>(x);  // x is integral here
            const auto y = integer.get<std::uint64_t>();
            return whole < y ? -1 : whole > y ? 1 : 0;
        }
        const auto y = integer.get<std::int64_t>();
        if (x >= kTwo63) return 1;
        if (x < -kTwo63) return -1;
        const auto whole = static_cast<std::int64_t>(x);  // truncated toward zero
        if (whole != y) return whole < y ? -1 : 1;
        const double fraction = x - static_cast<double>(whole);
        return fraction < 0 ? -1 : fraction > 0 ? 1 : 0;
    }

    static bool leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

    // RFC 3339 section 5.6 date-time, including the calendar (5.7).
    static bool is_date_time(const std::string& text) {
        static const std::regex grammar(
            R"(^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$)");
        std::smatch m;
        if (!std::regex_match(text, m, grammar)) return false;
        const int year = std::stoi(m[1]), month = std::stoi(m[2]), day = std::stoi(m[3]);
        static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        if (month < 1 || month > 12) return false;
        const int month_days = kDays[month - 1] + (month == 2 && leap(year) ? 1 : 0);
        if (day < 1 || day > month_days) return false;
        if (std::stoi(m[4]) > 23 || std::stoi(m[5]) > 59 || std::stoi(m[6]) > 60) return false;
        if (m[9].matched && (std::stoi(m[10]) > 23 || std::stoi(m[11]) > 59)) return false;
        return true;
    }

    static std::optional<std::string> fail(const std::string& where, const std::string& keyword) {
        return (where.empty() ? "/" : where) + ": " + keyword;
    }

    std::optional<std::string> evaluate(const json& schema, const json& instance,
                                        const std::string& where) const {
        static const std::set<std::string> kAnnotations = {"$schema",     "$id",      "title",
                                                           "description", "$comment", "examples"};
        for (auto keyword = schema.begin(); keyword != schema.end(); ++keyword) {
            const std::string& name = keyword.key();
            const json& value = keyword.value();
            if (kAnnotations.count(name) != 0) continue;
            if (name == "type") {
                if (!has_type(instance, value.get<std::string>())) return fail(where, name);
            } else if (name == "const") {
                if (!(instance.is_number() && value.is_number() ? compare(instance, value) == 0
                                                                : instance == value)) {
                    return fail(where, name);
                }
            } else if (name == "enum") {
                bool found = false;
                for (const json& option : value) found = found || option == instance;
                if (!found) return fail(where, name);
            } else if (name == "pattern") {
                if (!instance.is_string()) continue;
                const std::wregex pattern(wide(value.get<std::string>()), std::regex::ECMAScript);
                if (!std::regex_search(wide(instance.get<std::string>()), pattern)) {
                    return fail(where, name);
                }
            } else if (name == "format") {
                if (value != "date-time") throw std::invalid_argument("format " + value.dump());
                if (instance.is_string() && !is_date_time(instance.get<std::string>())) {
                    return fail(where, name);
                }
            } else if (name == "minLength" || name == "maxLength") {
                if (!instance.is_string()) continue;
                const auto length = code_points(instance.get<std::string>()).size();
                const auto bound = value.get<std::size_t>();
                if (name == "minLength" ? length < bound : length > bound) return fail(where, name);
            } else if (name == "minimum" || name == "maximum") {
                if (!instance.is_number()) continue;
                const int order = compare(instance, value);
                if (name == "minimum" ? order < 0 : order > 0) return fail(where, name);
            } else if (name == "required") {
                if (!instance.is_object()) continue;
                for (const json& member : value) {
                    if (!instance.contains(member.get<std::string>())) {
                        return fail(where + "/" + member.get<std::string>(), name);
                    }
                }
            } else if (name == "properties") {
                if (!instance.is_object()) continue;
                for (auto property = value.begin(); property != value.end(); ++property) {
                    auto member = instance.find(property.key());
                    if (member == instance.end()) continue;
                    if (auto failure =
                            evaluate(property.value(), *member, where + "/" + property.key())) {
                        return failure;
                    }
                }
            } else if (name == "additionalProperties") {
                if (!value.is_boolean()) throw std::invalid_argument("additionalProperties schema");
                if (!instance.is_object() || value.get<bool>()) continue;
                const json properties = schema.value("properties", json::object());
                for (auto member = instance.begin(); member != instance.end(); ++member) {
                    if (!properties.contains(member.key()))
                        return fail(where + "/" + member.key(), name);
                }
            } else {
                throw std::invalid_argument("the evaluator does not know keyword " + name);
            }
        }
        return std::nullopt;
    }
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_ENVELOPE_JSON_SCHEMA_EVALUATOR_H
