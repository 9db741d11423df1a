// Cuts the byte stream from the broker into MQTT packets (OASIS MQTT 5.0,
// 2.1: a first byte with type and flags, the Remaining Length as a Variable
// Byte Integer, then that many bytes). Reads from the socket in large
// chunks, so a burst of small PUBLISH packets costs one read, not several
// per packet.
#ifndef OUTPOST_BRIDGE_MQTT_V5_PACKET_READER_H
#define OUTPOST_BRIDGE_MQTT_V5_PACKET_READER_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bridge/mqtt/v5/packet_types.h"
#include "outpost/status.h"
#include "rocketmq/byte_stream.h"

namespace outpost::bridge::mqtt5 {

// One packet, pointing into the reader's buffer: valid until the next call
// to PacketReader::next.
struct RawPacket {
    uint8_t type = 0;   // PacketType
    uint8_t flags = 0;  // the first byte's low four bits
    std::string_view body;
};

class PacketReader final {
  public:
    // `maximum_packet_size`: the Maximum Packet Size this side announced
    // (the whole packet, fixed header included).
    explicit PacketReader(uint32_t maximum_packet_size);

    enum class Outcome { kPacket, kTimeout, kStreamError, kMalformed };

    // Reads until a whole packet is buffered or `deadline` passes (bytes read
    // so far are kept for the next call). kPacket: *packet holds it.
    // kTimeout: nothing whole yet. kStreamError: the socket failed or the
    // broker closed it (*error: the socket's status message). kMalformed:
    // a bad Remaining Length, packet type 0, or a packet larger than the
    // maximum (*violation says which; the connection cannot continue).
    Outcome next(rocketmq::ByteStream* socket, rocketmq::Deadline deadline, RawPacket* packet,
                 Status* error, PacketError* violation);

  private:
    // A whole packet at the front of the buffer: its total size, or 0.
    // Sets *violation and returns 0 when the front cannot be a packet.
    std::size_t whole_packet_size(PacketError* violation, bool* bad) const;

    uint32_t maximum_packet_size_;
    std::vector<char> buffer_;
    std::size_t begin_ = 0;  // first unread byte
    std::size_t end_ = 0;    // one past the last byte read
};

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_PACKET_READER_H
