// Reads the client-to-broker byte stream of one MQTT connection (3.1.1 or
// 5) and picks out the eventId of every alarm PUBLISH in it. Used by the
// stamping relay (publish_stamps.h) between the guest's publisher and the
// broker; it never changes a byte.
#ifndef OUTPOST_PROOF_VM_PUBLISH_SCANNER_H
#define OUTPOST_PROOF_VM_PUBLISH_SCANNER_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace outpost::torture::vm {

class PublishScanner final {
  public:
    // Consumes `size` bytes; returns the eventIds of the alarm PUBLISH
    // packets (topic "outpost/<gateway>/alarm/<device>") that these bytes
    // complete, in stream order. After a framing error (a remaining length
    // over 4 bytes) it reports nothing more and failed() is true.
    std::vector<std::string> feed(const uint8_t* data, size_t size);
    bool failed() const { return failed_; }

  private:
    // One whole packet: its first byte and the rest.
    void packet(uint8_t first, const std::string& body, std::vector<std::string>& ids);
    std::string pending_;
    int protocol_level_ = 4;  // until CONNECT says otherwise
    bool failed_ = false;
};

}  // namespace outpost::torture::vm

#endif  // OUTPOST_PROOF_VM_PUBLISH_SCANNER_H
