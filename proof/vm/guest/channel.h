// The guest's line channel to the host (a virtio-serial port). Evidence
// lines (faults/evidence.h) and VM protocol lines ("vm ...") share it; each
// line is one write(2), so lines of several threads never interleave.
#ifndef OUTPOST_PROOF_VM_GUEST_CHANNEL_H
#define OUTPOST_PROOF_VM_GUEST_CHANNEL_H

#include <string>

namespace outpost::torture::vm::guest {

class Channel final {
  public:
    explicit Channel(int fd) : fd_(fd) {}
    int fd() const { return fd_; }
    // Writes `text` plus '\n'. Errors are ignored: the host sees a short log.
    void line(const std::string& text) const;

  private:
    int fd_;
};

}  // namespace outpost::torture::vm::guest

#endif  // OUTPOST_PROOF_VM_GUEST_CHANNEL_H
