#include "bridge/mqtt/v5/packet_reader.h"

#include <cstring>

#include "bridge/mqtt/v5/reason_codes.h"
#include "bridge/mqtt/v5/wire_reader.h"

namespace outpost::bridge::mqtt5 {
namespace {

constexpr std::size_t kReadChunk = 64 * 1024;

}  // namespace

PacketReader::PacketReader(uint32_t maximum_packet_size)
    : maximum_packet_size_(maximum_packet_size), buffer_(kReadChunk) {}

std::size_t PacketReader::whole_packet_size(PacketError* violation, bool* bad) const {
    *bad = false;
    const std::size_t available = end_ - begin_;
    if (available < 2) return 0;
    const char* data = buffer_.data() + begin_;
    uint32_t remaining = 0;
    std::size_t used = 0;
    switch (decode_variable_byte_integer(std::string_view(data + 1, available - 1), &remaining,
                                         &used)) {
        case VbiState::kNeedMore:
            return 0;
        case VbiState::kMalformed:
            *bad = true;
            *violation = {kMalformedPacket,
                          "Remaining Length is not a valid Variable Byte Integer"};
            return 0;
        case VbiState::kComplete:
            break;
    }
    if ((static_cast<uint8_t>(data[0]) >> 4) == 0) {
        *bad = true;
        *violation = {kMalformedPacket, "packet type 0 (reserved)"};
        return 0;
    }
    const std::size_t total = 1 + used + remaining;
    if (total > maximum_packet_size_) {
        *bad = true;
        *violation = {kPacketTooLarge, "a packet of " + std::to_string(total) +
                                           " bytes, above the Maximum Packet Size of " +
                                           std::to_string(maximum_packet_size_) + " we announced"};
        return 0;
    }
    return available >= total ? total : 0;
}

PacketReader::Outcome PacketReader::next(rocketmq::ByteStream* socket, rocketmq::Deadline deadline,
                                         RawPacket* packet, Status* error, PacketError* violation) {
    for (;;) {
        bool bad = false;
        const std::size_t size = whole_packet_size(violation, &bad);
        if (bad) return Outcome::kMalformed;
        if (size > 0) {
            const char* data = buffer_.data() + begin_;
            const std::size_t header = size - [&] {
                uint32_t remaining = 0;
                std::size_t used = 0;
                decode_variable_byte_integer(std::string_view(data + 1, size - 1), &remaining,
                                             &used);
                return static_cast<std::size_t>(remaining);
            }();
            packet->type = static_cast<uint8_t>(data[0]) >> 4;
            packet->flags = static_cast<uint8_t>(data[0]) & 0x0f;
            packet->body = std::string_view(data + header, size - header);
            begin_ += size;
            return Outcome::kPacket;
        }
        // Room for more: move the partial packet to the front, grow for a
        // packet larger than the buffer.
        if (begin_ > 0) {
            std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
            end_ -= begin_;
            begin_ = 0;
        }
        if (buffer_.size() - end_ < kReadChunk / 4) buffer_.resize(buffer_.size() * 2);
        Result<std::size_t> got =
            socket->read_some(buffer_.data() + end_, buffer_.size() - end_, deadline);
        if (!got.is_ok()) {
            if (got.status().code() == StatusCode::kTimeout) return Outcome::kTimeout;
            *error = got.status();
            return Outcome::kStreamError;
        }
        end_ += *got;
    }
}

}  // namespace outpost::bridge::mqtt5
