// Reads a JSON configuration object field by field, collecting every problem
// with the dotted path of its field ("broker.keepalive_s must be an integer
// from 5 to 65535") instead of stopping at the first, so that one edit of the
// file fixes them all. Unknown members are reported too: they are usually
// typos. Used by the configuration parsers of outpost-bridge and outpostd.
//
// A reader can also record the dotted path of every key it, and the readers
// of the objects inside it, were asked for: the tests compare that record
// with each program's table of keys (daemon/config_keys.h,
// bridge/config_keys.h), so a key the parser reads cannot be missing from
// --help and the reference page, and a documented key cannot go unread.
//
// Header-only; the including part depends on nlohmann_json itself.
#ifndef OUTPOST_COMMON_JSON_OBJECT_READER_H
#define OUTPOST_COMMON_JSON_OBJECT_READER_H

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/strict_json.h"
#include "outpost/status.h"

namespace outpost {

// Borrows `object` and `errors` for its lifetime. Not thread-safe.
class JsonObjectReader final {
  public:
    using json = nlohmann::json;

    // `keys_read`, when given, receives the path of every key asked for by
    // this reader and the readers it makes ("publisher.window"; a member of
    // the objects of an array as "mapping[].tag"), present or not. Borrowed.
    JsonObjectReader(const json& object, std::string path, std::vector<std::string>& errors,
                     std::set<std::string>* keys_read = nullptr)
        : JsonObjectReader(object, path, path, errors, keys_read) {}

    JsonObjectReader(const JsonObjectReader&) = delete;
    JsonObjectReader& operator=(const JsonObjectReader&) = delete;

    // Reports every member no read_* or find call asked for; call after the reads.
    void report_unknown_fields() {
        for (auto it = object_.begin(); it != object_.end(); ++it) {
            if (known_.count(it.key()) == 0)
                errors_.push_back(field(it.key()) + " is not a known field");
        }
    }

    std::string field(const std::string& key) const {
        return path_.empty() ? key : path_ + "." + key;
    }
    void error(const std::string& key, const std::string& what) {
        errors_.push_back(field(key) + " " + what);
    }

    // The member `key`, or nullptr when absent (an error if `required`).
    const json* find(const std::string& key, bool required = false) {
        if (keys_read_ != nullptr) keys_read_->insert(key_path(key));
        return find_refused(key, required);
    }

    // The member `key` like find(), for a key that is refused when present
    // (a secret that belongs in a file of its own): it is not reported as
    // unknown, and not recorded as a key the program reads.
    const json* find_refused(const std::string& key, bool required = false) {
        known_.insert(key);
        auto it = object_.find(key);
        if (it == object_.end()) {
            if (required) error(key, "is required");
            return nullptr;
        }
        return &*it;
    }

    void read_string(const std::string& key, std::string& out, bool required = false) {
        const json* value = find(key, required);
        if (value == nullptr) return;
        if (!value->is_string()) return error(key, "must be a string");
        out = value->get<std::string>();
        if (required && out.empty()) error(key, "must not be empty");
    }

    template <typename Integer>
    void read_integer(const std::string& key, Integer& out, std::int64_t min, std::int64_t max) {
        const json* value = find(key);
        if (value == nullptr) return;
        if (!value->is_number_integer() || value->get<std::int64_t>() < min ||
            value->get<std::int64_t>() > max) {
            return error(key, "must be an integer from " + std::to_string(min) + " to " +
                                  std::to_string(max));
        }
        out = static_cast<Integer>(value->get<std::int64_t>());
    }

    void read_bool(const std::string& key, bool& out) {
        const json* value = find(key);
        if (value == nullptr) return;
        if (!value->is_boolean()) return error(key, "must be true or false");
        out = value->get<bool>();
    }

    // Calls `read` with a reader of the member object `key`, if present, and
    // reports that object's unknown members afterwards. Returns whether the
    // object was present and is an object.
    bool read_object(const std::string& key, bool required,
                     const std::function<void(JsonObjectReader&)>& read) {
        const json* value = find(key, required);
        if (value == nullptr) return false;
        if (!value->is_object()) {
            error(key, "must be an object");
            return false;
        }
        JsonObjectReader inner(*value, field(key), key_path(key), errors_, keys_read_);
        read(inner);
        inner.report_unknown_fields();
        return true;
    }

    // A non-empty array of strings; `out` keeps its default when absent.
    void read_string_list(const std::string& key, std::vector<std::string>& out) {
        const json* value = find(key);
        if (value == nullptr) return;
        if (!value->is_array() || value->empty()) {
            return error(key, "must be a non-empty array of strings");
        }
        out.clear();
        for (const json& item : *value) {
            if (!item.is_string()) return error(key, "must be a non-empty array of strings");
            out.push_back(item.get<std::string>());
        }
    }

    // A reader of `element`, item `index` of this object's array member
    // `key`: its errors name "key[index].member", and its keys are recorded
    // as "key[].member". Call report_unknown_fields() on it after its reads.
    JsonObjectReader element_reader(const std::string& key, std::size_t index,
                                    const json& element) {
        return JsonObjectReader(element, field(key) + "[" + std::to_string(index) + "]",
                                key_path(key) + "[]", errors_, keys_read_);
    }

  private:
    JsonObjectReader(const json& object, std::string path, std::string key_path,
                     std::vector<std::string>& errors, std::set<std::string>* keys_read)
        : object_(object),
          path_(std::move(path)),
          key_path_(std::move(key_path)),
          errors_(errors),
          keys_read_(keys_read) {}

    std::string key_path(const std::string& key) const {
        return key_path_.empty() ? key : key_path_ + "." + key;
    }

    const json& object_;
    const std::string path_;      // for messages: "mapping[2]"
    const std::string key_path_;  // for the record of keys read: "mapping[]"
    std::vector<std::string>& errors_;
    std::set<std::string>* const keys_read_;  // may be null
    std::set<std::string> known_;
};

// The top-level object of a configuration text; kInvalidArgument when the
// text is not JSON (the message names the byte offset), not an object, or
// repeats a key in one object or nests deeper than 64 (common/strict_json.h;
// a byte-order mark is allowed here).
inline Result<nlohmann::json> parse_config_object(const std::string& json_text) {
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(json_text);
    } catch (const nlohmann::json::exception& error) {
        return Status::error(StatusCode::kInvalidArgument,
                             std::string("configuration is not valid JSON: ") + error.what());
    }
    if (!document.is_object()) {
        return Status::error(StatusCode::kInvalidArgument,
                             "configuration must be a JSON object at the top level");
    }
    // Valid JSON; read again the strict way, for what the lax parse keeps
    // silently: a repeated key (the last one won). A byte-order mark, which
    // some editors write, stays allowed in a configuration file.
    constexpr int kMaxConfigDepth = 64;
    const bool bom = json_text.compare(0, 3, "\xEF\xBB\xBF") == 0;
    auto strict = parse_strict_json(bom ? json_text.substr(3) : json_text, kMaxConfigDepth);
    if (const auto* refusal = std::get_if<JsonRefusal>(&strict)) {
        return Status::error(StatusCode::kInvalidArgument, "configuration " + refusal->detail);
    }
    return document;
}

// The whole file at `path`; kNotFound when it cannot be read.
inline Result<std::string> read_config_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return Status::error(StatusCode::kNotFound, "cannot read configuration file " + path);
    }
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// "configuration has N problems:\n  a\n  b" for a Status message.
inline std::string describe_config_problems(const std::vector<std::string>& errors) {
    std::string message = "configuration has " + std::to_string(errors.size()) +
                          (errors.size() == 1 ? " problem:" : " problems:");
    for (const std::string& error : errors) message += "\n  " + error;
    return message;
}

}  // namespace outpost

#endif  // OUTPOST_COMMON_JSON_OBJECT_READER_H
