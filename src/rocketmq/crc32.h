// CRC-32 (IEEE 802.3, the polynomial of zlib and java.util.zip.CRC32) and
// the 31-bit form RocketMQ stores as a message's body CRC.
#ifndef OUTPOST_ROCKETMQ_CRC32_H
#define OUTPOST_ROCKETMQ_CRC32_H

#include <cstdint>
#include <string_view>

namespace outpost::rocketmq {

// CRC-32 of `data`: crc32("123456789") == 0xCBF43926.
std::uint32_t crc32(std::string_view data);

// What the broker writes as BODYCRC (UtilAll.crc32): crc32 with the top bit
// cleared, so it fits a non-negative Java int.
std::int32_t rocketmq_body_crc(std::string_view body);

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_CRC32_H
