// One file as the disk would hold it after a power cut: the contents made
// durable by the last xSync, plus every write and truncate since then.
// Internal to the power-cut VFS; see the design note in pending_file.cpp.
#ifndef OUTPOST_PROOF_PENDING_FILE_H
#define OUTPOST_PROOF_PENDING_FILE_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "proof/cut_policy.h"
#include "proof/cut_random.h"

namespace outpost::testing {

using Bytes = std::vector<unsigned char>;

// How a cut treated the pending operations of one or more files.
struct CutTally {
    std::uint64_t kept = 0;
    std::uint64_t dropped = 0;
    std::uint64_t torn = 0;
    // Sectors a torn write left filled with garbage (only without
    // powersafe overwrite).
    std::uint64_t garbage_sectors = 0;
};

class PendingFile final {
  public:
    // `durable` is what the disk already holds for sure (what the file
    // contained when the simulator first saw it; empty for a new file).
    explicit PendingFile(Bytes durable);

    // Records a write the real file has just received. `offset` >= 0.
    void record_write(std::int64_t offset, const void* data, std::size_t size);
    // Records a truncate (or extension) of the real file to `size` >= 0.
    void record_truncate(std::int64_t size);
    // xSync: every pending operation is now durable.
    void make_durable();

    // Size the running process sees (durable image with all pending applied).
    std::int64_t size() const { return size_; }
    std::size_t pending_count() const { return pending_.size(); }
    // The contents the disk holds for sure.
    const Bytes& durable() const { return durable_; }

    // The file as the disk holds it after a power cut: the durable image
    // with each pending operation, in order, kept, dropped or torn as
    // `mode` says. Draws from `random` only in CutMode::kRandom.
    // Adds what it did to `tally`.
    Bytes image_after_cut(CutMode mode, const DeviceModel& device, CutRandom& random,
                          CutTally& tally) const;

  private:
    struct Operation {
        std::int64_t offset = 0;        // write: where it starts
        Bytes data;                     // write: what it wrote
        std::int64_t truncate_to = -1;  // >= 0: this is a truncate to that size
    };

    static void apply(const Operation& op, Bytes& image);
    static void tear(const Operation& op, const DeviceModel& device, CutRandom& random,
                     Bytes& image, CutTally& tally);

    Bytes durable_;
    std::vector<Operation> pending_;  // in the order the process issued them
    std::int64_t size_;
};

}  // namespace outpost::testing

#endif  // OUTPOST_PROOF_PENDING_FILE_H
