// The remoting frame: how one RocketMQ request or response travels on TCP.
//
// Layout, all integers big-endian:
//   int32  length         bytes that follow this field (4 + header + body)
//   int32  header word    serialize type << 24 | header length (24 bits)
//   bytes  header         JSON object (serialize type 0): code, language,
//                         version, opaque, flag, remark, extFields
//   bytes  body           the rest of the frame, opaque to this layer
//
// Frames larger than kMaxFrameLength are refused in both directions, as the
// Java side does. Decoding never trusts a length field: every malformed or
// hostile input yields an error Status, never a crash or an exception.
#ifndef OUTPOST_ROCKETMQ_FRAME_H
#define OUTPOST_ROCKETMQ_FRAME_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "outpost/status.h"

namespace outpost::rocketmq {

// Largest value of the length field accepted or produced (16 MiB).
constexpr std::size_t kMaxFrameLength = 16u * 1024u * 1024u;
// Deepest nesting of objects and arrays accepted in the JSON a server sends
// (headers, route bodies; the real ones nest 4 at most). Checked while
// parsing (common/strict_json.h), so a hostile nesting costs neither
// memory nor time beyond reading it.
constexpr int kMaxJsonDepth = 16;
// Bytes of the length prefix.
constexpr std::size_t kFrameLengthPrefix = 4;

// Flag bits of a command.
constexpr std::int32_t kFlagResponse = 1;
constexpr std::int32_t kFlagOneway = 2;

// One request or response.
struct RemotingCommand {
    std::int32_t code = 0;
    std::string language = "CPP";
    std::int32_t version = 0;
    // Matches a response to its request; chosen by the requester.
    std::int32_t opaque = 0;
    std::int32_t flag = 0;
    std::string remark;
    std::map<std::string, std::string> ext_fields;
    std::string body;

    bool is_response() const { return (flag & kFlagResponse) != 0; }
};

// The ext field `name` of `command`; "" when absent.
std::string ext_field_as_string(const RemotingCommand& command, const char* name);
// The ext field `name` read as a decimal integer; 0 when absent or not a number.
std::int64_t ext_field_as_int(const RemotingCommand& command, const char* name);

// Encodes `command` into a whole frame, length prefix included.
// Fails with kInvalidArgument when the frame would exceed kMaxFrameLength or
// when a string is not valid UTF-8 (JSON cannot carry it).
Result<std::string> encode_frame(const RemotingCommand& command);

// Reads the length prefix (the first 4 bytes of a frame) and returns the
// number of bytes that follow it. Fails with kInvalidArgument when the value
// is below the minimum (4) or above kMaxFrameLength: the stream is then
// unusable and the connection must be dropped.
Result<std::size_t> decode_frame_length(const unsigned char prefix[kFrameLengthPrefix]);

// Decodes one whole frame (length prefix included; `frame` must hold exactly
// one frame). Fails with kInvalidArgument, naming the defect, when the frame is
// truncated, longer than its length field says, uses a serialize type other
// than JSON, has a header length beyond the frame, or has a header that is not
// a JSON object with an integer "code".
Result<RemotingCommand> decode_frame(std::string_view frame);

// Decodes the part after the length prefix (header word, header, body).
// Same failures as decode_frame.
Result<RemotingCommand> decode_frame_payload(std::string_view payload);

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_FRAME_H
