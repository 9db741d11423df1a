// A TCP relay on the host between the guest's publisher and the broker that
// notes, for every alarm PUBLISH the guest sends, how long the recording's
// block log was when the relay received it.
//
// Why: the publisher marks a row SENT only after the broker's PUBACK, and
// purges it only after that; both are writes the guest makes after the
// PUBLISH left it. Every log entry QEMU allocates after the relay saw the
// PUBLISH starts at or after the log length read at that moment (QEMU
// appends). So an event whose first PUBLISH was stamped at log length L may
// have been marked (and purged) only in crash states cut after the first
// entry at or after L: that is the checker's "mark started" evidence, placed
// on the same time line as the disk's writes (faults/checker.h, C2).
//
// Threads: one accepting, two per connection (guest to broker, broker to
// guest). Stopped, and all joined, by the destructor.
#ifndef OUTPOST_PROOF_VM_PUBLISH_STAMPS_H
#define OUTPOST_PROOF_VM_PUBLISH_STAMPS_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace outpost::torture::vm {

class PublishStamps final {
  public:
    // Listens on 127.0.0.1 (a free port) and relays each connection to
    // 127.0.0.1:`broker_port`; `log_path` is the block log QEMU writes.
    // nullptr with *error set when it cannot listen or open the log.
    static std::unique_ptr<PublishStamps> start(int broker_port, const std::string& log_path,
                                                std::string* error);
    ~PublishStamps();
    PublishStamps(const PublishStamps&) = delete;
    PublishStamps& operator=(const PublishStamps&) = delete;

    int port() const;
    // eventId -> the smallest log length at which it was published.
    std::map<std::string, uint64_t> stamps() const;
    // Connections whose stream could not be framed as MQTT (must be 0).
    int unreadable_streams() const;

    struct Impl;

  private:
    explicit PublishStamps(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace outpost::torture::vm

#endif  // OUTPOST_PROOF_VM_PUBLISH_STAMPS_H
