// The RocketMQ remoting frame decoder (rocketmq/frame.h), fed what a broker
// or name server could send. Properties: a frame that decodes re-encodes,
// and the re-encoded frame decodes to the same command and is a fixed point
// (encoding its decoding gives the same bytes); the length prefix agrees
// with decode_frame_length; and any command the encoder accepts decodes
// back unchanged.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "rocketmq/frame.h"

namespace {

using outpost::rocketmq::RemotingCommand;

bool same(const RemotingCommand& a, const RemotingCommand& b) {
    return a.code == b.code && a.language == b.language && a.version == b.version &&
           a.opaque == b.opaque && a.flag == b.flag && a.remark == b.remark &&
           a.ext_fields == b.ext_fields && a.body == b.body;
}

void check_decoded(std::string_view frame) {
    auto decoded = outpost::rocketmq::decode_frame(frame);
    if (frame.size() >= outpost::rocketmq::kFrameLengthPrefix) {
        auto length = outpost::rocketmq::decode_frame_length(
            reinterpret_cast<const unsigned char*>(frame.data()));
        FUZZ_CHECK(
            !decoded.is_ok() ||
                (length.is_ok() && *length + outpost::rocketmq::kFrameLengthPrefix == frame.size()),
            "a decoded frame is exactly as long as its length field says");
    }
    if (!decoded.is_ok()) return;
    auto encoded = outpost::rocketmq::encode_frame(*decoded);
    FUZZ_CHECK(encoded.is_ok(), "a decoded command encodes again");
    auto again = outpost::rocketmq::decode_frame(*encoded);
    FUZZ_CHECK(again.is_ok() && same(*again, *decoded), "a re-encoded frame decodes the same");
    auto twice = outpost::rocketmq::encode_frame(*again);
    FUZZ_CHECK(twice.is_ok() && *twice == *encoded, "encoding is a fixed point of decoding");
}

void check_encoded(FuzzedDataProvider& input) {
    RemotingCommand command;
    command.code = input.ConsumeIntegral<std::int32_t>();
    command.version = input.ConsumeIntegral<std::int32_t>();
    command.opaque = input.ConsumeIntegral<std::int32_t>();
    command.flag = input.ConsumeIntegral<std::int32_t>();
    command.language = input.ConsumeRandomLengthString(8);
    command.remark = input.ConsumeRandomLengthString(32);
    for (int i = input.ConsumeIntegralInRange<int>(0, 4); i > 0; --i) {
        std::string name = input.ConsumeRandomLengthString(16);
        command.ext_fields[name] = input.ConsumeRandomLengthString(32);
    }
    command.body = input.ConsumeRemainingBytesAsString();
    auto encoded = outpost::rocketmq::encode_frame(command);
    if (!encoded.is_ok()) return;
    auto decoded = outpost::rocketmq::decode_frame(*encoded);
    FUZZ_CHECK(decoded.is_ok() && same(*decoded, command), "an encoded command decodes unchanged");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    check_decoded(std::string_view(reinterpret_cast<const char*>(data), size));
    FuzzedDataProvider input(data, size);
    check_encoded(input);
    return 0;
}
