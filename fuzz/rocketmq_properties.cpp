// RocketMQ message properties ("name \x01 value \x02" pairs). Properties:
// what decode_properties accepts never holds a separator byte or an empty
// name, so it re-encodes, and the re-encoded text decodes to the same
// pairs; and any pairs encode_properties accepts decode back unchanged.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "rocketmq/properties.h"

namespace {

bool has_separator(const std::string& text) {
    return text.find('\x01') != std::string::npos || text.find('\x02') != std::string::npos;
}

void check_decoded(std::string_view encoded) {
    auto decoded = outpost::rocketmq::decode_properties(encoded);
    if (!decoded.is_ok()) return;
    for (const auto& [name, value] : *decoded) {
        FUZZ_CHECK(!name.empty(), "a decoded property has a name");
        FUZZ_CHECK(!has_separator(name) && !has_separator(value),
                   "a decoded property holds no separator byte");
    }
    auto again = outpost::rocketmq::encode_properties(*decoded);
    FUZZ_CHECK(again.is_ok(), "decoded properties encode again");
    auto round = outpost::rocketmq::decode_properties(*again);
    FUZZ_CHECK(round.is_ok() && *round == *decoded, "re-encoded properties decode the same");
}

void check_encoded(FuzzedDataProvider& input) {
    std::map<std::string, std::string> properties;
    while (input.remaining_bytes() > 0 && properties.size() < 16) {
        std::string name = input.ConsumeRandomLengthString(16);
        properties[name] = input.ConsumeRandomLengthString(64);
    }
    auto encoded = outpost::rocketmq::encode_properties(properties);
    if (!encoded.is_ok()) return;
    auto decoded = outpost::rocketmq::decode_properties(*encoded);
    FUZZ_CHECK(decoded.is_ok() && *decoded == properties, "encoded properties decode unchanged");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    check_decoded(std::string_view(reinterpret_cast<const char*>(data), size));
    FuzzedDataProvider input(data, size);
    check_encoded(input);
    return 0;
}
