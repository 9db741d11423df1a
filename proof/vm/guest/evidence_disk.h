// The guest's side of the evidence records on its data disk
// (torture/vm/disk_layout.h): appending records with O_DIRECT, so that each
// one is a write of its own in the block log at the moment it is made, and
// reading the records the host left there for a crash-state check.
#ifndef OUTPOST_PROOF_VM_GUEST_EVIDENCE_DISK_H
#define OUTPOST_PROOF_VM_GUEST_EVIDENCE_DISK_H

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace outpost::torture::vm::guest {

class EvidenceDisk final {
  public:
    // Opens `device` (the whole data disk) for O_DIRECT writes. nullptr with
    // *error set on failure.
    static std::unique_ptr<EvidenceDisk> open(const std::string& device, std::string* error);
    ~EvidenceDisk();
    EvidenceDisk(const EvidenceDisk&) = delete;
    EvidenceDisk& operator=(const EvidenceDisk&) = delete;

    // Writes `line` as the next record and returns once the device completed
    // the write. Thread-safe (each record has its own sector). False when the
    // write failed or the region is full.
    bool append(const std::string& line);

  private:
    explicit EvidenceDisk(int fd) : fd_(fd) {}
    const int fd_;
    std::atomic<uint64_t> next_{0};
};

// The record lines in the evidence region of `device`, from the first record
// to the first sector without one. False with *error set if it cannot be read.
bool read_records(const std::string& device, std::vector<std::string>* lines, std::string* error);

}  // namespace outpost::torture::vm::guest

#endif  // OUTPOST_PROOF_VM_GUEST_EVIDENCE_DISK_H
