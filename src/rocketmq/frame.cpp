#include "rocketmq/frame.h"

#include <cstdlib>
#include <exception>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <variant>

#include "common/strict_json.h"

namespace outpost::rocketmq {
namespace {

constexpr std::uint32_t kSerializeTypeJson = 0;
constexpr std::uint32_t kHeaderLengthMask = 0x00FFFFFFu;

void put_u32(std::string& out, std::uint32_t value) {
    out.push_back(static_cast<char>((value >> 24) & 0xFFu));
    out.push_back(static_cast<char>((value >> 16) & 0xFFu));
    out.push_back(static_cast<char>((value >> 8) & 0xFFu));
    out.push_back(static_cast<char>(value & 0xFFu));
}

std::uint32_t get_u32(const unsigned char* in) {
    return (std::uint32_t{in[0]} << 24) | (std::uint32_t{in[1]} << 16) |
           (std::uint32_t{in[2]} << 8) | std::uint32_t{in[3]};
}

Status malformed(const std::string& what) {
    return Status::error(StatusCode::kInvalidArgument, "malformed remoting frame: " + what);
}

// Reads an int32 member; absent means 0, anything else than an integer in
// range is an error.
bool read_int32(const nlohmann::json& header, const char* name, std::int32_t* out) {
    auto it = header.find(name);
    if (it == header.end() || it->is_null()) {
        *out = 0;
        return true;
    }
    if (it->is_number_unsigned()) {
        auto value = it->get<std::uint64_t>();
        if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
            return false;
        }
        *out = static_cast<std::int32_t>(value);
        return true;
    }
    if (it->is_number_integer()) {
        auto value = it->get<std::int64_t>();
        if (value < std::numeric_limits<std::int32_t>::min() ||
            value > std::numeric_limits<std::int32_t>::max()) {
            return false;
        }
        *out = static_cast<std::int32_t>(value);
        return true;
    }
    return false;
}

// extFields values are strings on the wire; tolerate scalars some servers emit.
bool scalar_to_string(const nlohmann::json& value, std::string* out) {
    if (value.is_string()) {
        *out = value.get<std::string>();
    } else if (value.is_number() || value.is_boolean()) {
        *out = value.dump();
    } else if (value.is_null()) {
        out->clear();
    } else {
        return false;
    }
    return true;
}

Result<RemotingCommand> parse_header(std::string_view text) {
    std::variant<nlohmann::json, JsonRefusal> parsed =
        parse_strict_json(std::string(text), kMaxJsonDepth);
    if (const JsonRefusal* refusal = std::get_if<JsonRefusal>(&parsed)) {
        return malformed("header " + refusal->detail);
    }
    const nlohmann::json& header = std::get<nlohmann::json>(parsed);
    if (!header.is_object()) {
        return malformed("header is JSON but not an object");
    }
    if (header.find("code") == header.end()) {
        return malformed("header has no \"code\"");
    }
    RemotingCommand command;
    if (!read_int32(header, "code", &command.code) ||
        !read_int32(header, "version", &command.version) ||
        !read_int32(header, "opaque", &command.opaque) ||
        !read_int32(header, "flag", &command.flag)) {
        return malformed("code, version, opaque or flag is not a 32-bit integer");
    }
    auto language = header.find("language");
    if (language != header.end() && language->is_string()) {
        command.language = language->get<std::string>();
    }
    auto remark = header.find("remark");
    if (remark != header.end() && !scalar_to_string(*remark, &command.remark)) {
        return malformed("\"remark\" is not a string");
    }
    auto fields = header.find("extFields");
    if (fields != header.end() && !fields->is_null()) {
        if (!fields->is_object()) {
            return malformed("\"extFields\" is not an object");
        }
        for (auto it = fields->begin(); it != fields->end(); ++it) {
            std::string value;
            if (!scalar_to_string(it.value(), &value)) {
                return malformed("extFields member \"" + it.key() + "\" is not a scalar");
            }
            command.ext_fields.emplace(it.key(), std::move(value));
        }
    }
    return command;
}

}  // namespace

std::string ext_field_as_string(const RemotingCommand& command, const char* name) {
    auto it = command.ext_fields.find(name);
    return it == command.ext_fields.end() ? std::string() : it->second;
}

std::int64_t ext_field_as_int(const RemotingCommand& command, const char* name) {
    auto it = command.ext_fields.find(name);
    return it == command.ext_fields.end() ? 0 : std::strtoll(it->second.c_str(), nullptr, 10);
}

Result<std::string> encode_frame(const RemotingCommand& command) {
    std::string header_text;
    try {
        nlohmann::json header = {
            {"code", command.code},       {"language", command.language},
            {"version", command.version}, {"opaque", command.opaque},
            {"flag", command.flag},       {"serializeTypeCurrentRPC", "JSON"},
        };
        if (!command.remark.empty()) {
            header["remark"] = command.remark;
        }
        header["extFields"] = nlohmann::json::object();
        for (const auto& [name, value] : command.ext_fields) {
            header["extFields"][name] = value;
        }
        // strict: a string that is not UTF-8 throws here instead of going out garbled.
        header_text = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
    } catch (const std::exception& e) {
        return Status::error(StatusCode::kInvalidArgument,
                             std::string("cannot encode remoting header: ") + e.what());
    }
    const std::size_t length = 4 + header_text.size() + command.body.size();
    if (header_text.size() > kHeaderLengthMask || length > kMaxFrameLength) {
        return Status::error(
            StatusCode::kInvalidArgument,
            "remoting frame of " + std::to_string(length) + " bytes exceeds the 16 MiB limit");
    }
    std::string frame;
    frame.reserve(kFrameLengthPrefix + length);
    put_u32(frame, static_cast<std::uint32_t>(length));
    put_u32(frame, (kSerializeTypeJson << 24) | static_cast<std::uint32_t>(header_text.size()));
    frame += header_text;
    frame += command.body;
    return frame;
}

Result<std::size_t> decode_frame_length(const unsigned char prefix[kFrameLengthPrefix]) {
    const std::uint32_t length = get_u32(prefix);
    if (length < 4) {
        return malformed("length field " + std::to_string(length) + " is below 4");
    }
    if (length > kMaxFrameLength) {
        return malformed("length field " + std::to_string(length) + " exceeds the 16 MiB limit");
    }
    return static_cast<std::size_t>(length);
}

Result<RemotingCommand> decode_frame_payload(std::string_view payload) {
    if (payload.size() < 4) {
        return malformed("payload of " + std::to_string(payload.size()) +
                         " bytes has no header word");
    }
    if (payload.size() > kMaxFrameLength) {
        return malformed("payload exceeds the 16 MiB limit");
    }
    const auto* bytes = reinterpret_cast<const unsigned char*>(payload.data());
    const std::uint32_t word = get_u32(bytes);
    const std::uint32_t serialize_type = word >> 24;
    const std::size_t header_length = word & kHeaderLengthMask;
    if (serialize_type != kSerializeTypeJson) {
        return malformed("serialize type " + std::to_string(serialize_type) +
                         " is not supported (only JSON)");
    }
    if (header_length > payload.size() - 4) {
        return malformed("header length " + std::to_string(header_length) + " exceeds the frame (" +
                         std::to_string(payload.size() - 4) + " bytes left)");
    }
    try {
        Result<RemotingCommand> command = parse_header(payload.substr(4, header_length));
        if (command.is_ok()) {
            command->body.assign(payload.substr(4 + header_length));
        }
        return command;
    } catch (const std::exception& e) {
        // Only allocation failures can get here; still an error value.
        return malformed(std::string("header could not be decoded: ") + e.what());
    }
}

Result<RemotingCommand> decode_frame(std::string_view frame) {
    if (frame.size() < kFrameLengthPrefix) {
        return malformed("truncated before the length field (" + std::to_string(frame.size()) +
                         " bytes)");
    }
    Result<std::size_t> length =
        decode_frame_length(reinterpret_cast<const unsigned char*>(frame.data()));
    if (!length.is_ok()) {
        return length.status();
    }
    const std::size_t available = frame.size() - kFrameLengthPrefix;
    if (*length != available) {
        return malformed("length field says " + std::to_string(*length) + " bytes but " +
                         std::to_string(available) + " follow");
    }
    return decode_frame_payload(frame.substr(kFrameLengthPrefix));
}

}  // namespace outpost::rocketmq
