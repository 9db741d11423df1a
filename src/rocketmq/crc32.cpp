#include "rocketmq/crc32.h"

#include <array>

namespace outpost::rocketmq {
namespace {

// The reflected polynomial 0x04C11DB7.
constexpr std::uint32_t kPolynomial = 0xEDB88320u;

std::array<std::uint32_t, 256> make_table() {
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t byte = 0; byte < table.size(); ++byte) {
        std::uint32_t value = byte;
        for (int bit = 0; bit < 8; ++bit) {
            value = (value & 1u) != 0 ? (value >> 1) ^ kPolynomial : value >> 1;
        }
        table[byte] = value;
    }
    return table;
}

}  // namespace

std::uint32_t crc32(std::string_view data) {
    static const std::array<std::uint32_t, 256> kTable = make_table();
    std::uint32_t crc = 0xFFFFFFFFu;
    for (const char c : data) {
        crc = kTable[(crc ^ static_cast<unsigned char>(c)) & 0xFFu] ^ (crc >> 8);
    }
    return crc ^ 0xFFFFFFFFu;
}

std::int32_t rocketmq_body_crc(std::string_view body) {
    return static_cast<std::int32_t>(crc32(body) & 0x7FFFFFFFu);
}

}  // namespace outpost::rocketmq
