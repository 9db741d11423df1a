#include "common/envelope_document.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "common/envelope_contract.h"

namespace outpost::envelope {
namespace {

using nlohmann::json;

std::string named(const FieldRule& rule, const std::string& what) {
    return std::string(rule.path) + " " + what;
}

// `value` against `rule`; nullopt when it conforms.
std::optional<std::string> check_value(const FieldRule& rule, const json& value) {
    switch (rule.type) {
        case FieldType::kString: {
            if (!value.is_string()) return named(rule, "must be a string");
            auto problem = check_text(rule, value.get_ref<const std::string&>());
            if (problem) return named(rule, *problem);
            return std::nullopt;
        }
        case FieldType::kInteger: {
            // nlohmann reads an integer literal as a signed or unsigned
            // integer, anything with a fraction or exponent as a float, and
            // an integer beyond uint64 as a float too.
            if (value.is_number_float()) {
                return named(rule,
                             "must be an integer literal (no fraction or exponent) within "
                             "int64");
            }
            if (!value.is_number_integer()) return named(rule, "must be an integer");
            if (value.is_number_unsigned() &&
                value.get<std::uint64_t>() >
                    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
                return named(rule, "must be within int64");
            }
            auto problem = check_integer(rule, value.get<std::int64_t>());
            if (problem) return named(rule, *problem);
            return std::nullopt;
        }
        case FieldType::kNumber: {
            if (!value.is_number()) return named(rule, "must be a number");
            auto problem = check_number(rule, value.get<double>());
            if (problem) return named(rule, *problem);
            return std::nullopt;
        }
        case FieldType::kObject:
            if (!value.is_object()) return named(rule, "must be an object");
            return check_payload(value);
    }
    return std::nullopt;
}

// Each field of `fields` in `object`, in table order.
std::optional<std::string> check_members(const json& object, const std::vector<FieldRule>& fields) {
    for (const FieldRule& rule : fields) {
        auto member = object.find(rule.name);
        if (member == object.end()) {
            if (rule.required) return named(rule, "is required");
            continue;
        }
        if (auto problem = check_value(rule, *member)) return problem;
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> check_envelope(const json& document) {
    if (!document.is_object()) return "envelope must be a JSON object";
    const std::vector<FieldRule>& fields = envelope_fields();
    for (auto member = document.begin(); member != document.end(); ++member) {
        bool known = false;
        for (const FieldRule& rule : fields) known = known || member.key() == rule.name;
        if (!known) return member.key() + " is not an envelope field";
    }
    return check_members(document, fields);
}

std::optional<std::string> check_payload(const json& payload) {
    if (!payload.is_object()) return "payload must be an object";
    return check_members(payload, payload_fields());
}

}  // namespace outpost::envelope
