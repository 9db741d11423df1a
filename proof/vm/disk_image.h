// A disk image in memory, advanced through a block log entry by entry, and
// the crash states cut from it (crash_state.h). Only the file system's part
// of the disk is replayed: the evidence records beyond kFsBytes are the
// guest's testimony, not state a crash could leave (disk_layout.h).
#ifndef OUTPOST_PROOF_VM_DISK_IMAGE_H
#define OUTPOST_PROOF_VM_DISK_IMAGE_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "proof/vm/block_log.h"
#include "proof/vm/crash_state.h"

namespace outpost::torture::vm {

class DiskImage final {
  public:
    // The whole file at `path`; nullopt-like nullptr with *error set when it
    // cannot be read.
    static std::unique_ptr<DiskImage> load(const std::string& path, std::string* error);
    explicit DiskImage(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}

    // Applies `entry` of `log` (a write, or a discard as zeros); with
    // `sectors` not empty, only the log sectors it marks. Bytes at or beyond
    // `limit` are left alone.
    void apply(const BlockLog& log, const LogEntry& entry, const std::vector<bool>& sectors,
               uint64_t limit);
    // Overwrites [offset, offset + size) (clipped to the image).
    void write(uint64_t offset, const std::string& data);

    // Writes the image to `path` as a sparse file (all-zero 4 KiB blocks are
    // holes). False with *error set on failure.
    bool save(const std::string& path, std::string* error) const;

    const std::vector<uint8_t>& bytes() const { return bytes_; }

  private:
    std::vector<uint8_t> bytes_;
};

// Replays a log onto a copy of a base image, forward only, handing out crash
// states on the way. States must be asked for in order of prefix_end.
class Replayer final {
  public:
    Replayer(const BlockLog& log, const DiskImage& base, uint64_t limit)
        : log_(log), image_(base), limit_(limit) {}

    // The disk `state` describes: the prefix, then its surviving tail.
    DiskImage state(const CrashState& state);
    // Applies every remaining entry: the disk as the guest left it.
    const DiskImage& finish();

  private:
    void advance_to(size_t end);
    const BlockLog& log_;
    DiskImage image_;
    uint64_t limit_;
    size_t applied_ = 0;
};

}  // namespace outpost::torture::vm

#endif  // OUTPOST_PROOF_VM_DISK_IMAGE_H
