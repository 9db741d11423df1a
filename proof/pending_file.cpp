// Design note: the disk's view of one file under the power-cut VFS.
//
// State. `durable_` is the file as it is on the platters for sure: its
// contents after the last xSync (or when the simulator first opened it).
// `pending_` lists, in issue order, every write and truncate since then. The
// real file on the host received each of them at once, so the running
// process reads what it wrote, exactly as with a page cache.
//
// Invariants:
//   1. durable_ with every pending_ operation applied in order equals what
//      the process wrote, and its size is size_.
//   2. make_durable() (xSync) is the only way an operation leaves pending_,
//      and it leaves into durable_.
//   3. A cut never changes durable_ bytes except, without powersafe
//      overwrite, inside a sector that a pending write touched.
//
// A cut. Starting from durable_, each pending operation in order is kept
// (applied whole), dropped (skipped) or torn. A torn write lands sector by
// sector: each sector it touches independently gets its new bytes or keeps
// its old ones, and without powersafe overwrite may instead be filled with
// garbage across the whole sector. A torn write that extends the file still
// extends it (the size reached the disk, some data did not), so sectors left
// old beyond the former end read as zeros. Truncates are kept or dropped,
// never torn. Keeping a subset of the operations in issue order covers every
// state a write-back cache can leave: per sector, the disk holds the synced
// version or one of the versions written after it.
#include "proof/pending_file.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <utility>

namespace outpost::testing {

namespace {

std::size_t to_size(std::int64_t value) {
    assert(value >= 0);
    return static_cast<std::size_t>(value);
}

}  // namespace

PendingFile::PendingFile(Bytes durable)
    : durable_(std::move(durable)), size_(static_cast<std::int64_t>(durable_.size())) {}

void PendingFile::record_write(std::int64_t offset, const void* data, std::size_t size) {
    assert(offset >= 0);
    if (size == 0) return;
    Operation op;
    op.offset = offset;
    const auto* bytes = static_cast<const unsigned char*>(data);
    op.data.assign(bytes, bytes + size);
    pending_.push_back(std::move(op));
    size_ = std::max(size_, offset + static_cast<std::int64_t>(size));  // invariant 1
}

void PendingFile::record_truncate(std::int64_t size) {
    assert(size >= 0);
    Operation op;
    op.truncate_to = size;
    pending_.push_back(std::move(op));
    size_ = size;  // invariant 1
}

void PendingFile::make_durable() {
    for (const Operation& op : pending_) apply(op, durable_);
    pending_.clear();
    assert(static_cast<std::int64_t>(durable_.size()) == size_);  // invariants 1 and 2
}

void PendingFile::apply(const Operation& op, Bytes& image) {
    if (op.truncate_to >= 0) {
        image.resize(to_size(op.truncate_to), 0);
        return;
    }
    const std::size_t start = to_size(op.offset);
    const std::size_t end = start + op.data.size();
    if (image.size() < end) image.resize(end, 0);
    std::memcpy(image.data() + start, op.data.data(), op.data.size());
}

void PendingFile::tear(const Operation& op, const DeviceModel& device, CutRandom& random,
                       Bytes& image, CutTally& tally) {
    const std::size_t sector = device.sector_size;
    const std::size_t start = to_size(op.offset);
    const std::size_t end = start + op.data.size();
    if (image.size() < end) image.resize(end, 0);
    for (std::size_t first = start - start % sector; first < end; first += sector) {
        const std::size_t low = std::max(start, first);
        const std::size_t high = std::min(end, first + sector);
        const std::uint32_t outcome = random.below(device.powersafe_overwrite ? 2 : 3);
        if (outcome == 0) {  // this sector reached the disk
            std::memcpy(image.data() + low, op.data.data() + (low - start), high - low);
        } else if (outcome == 2) {  // the whole sector was damaged (invariant 3)
            const std::size_t stop = std::min(first + sector, image.size());
            for (std::size_t i = first; i < stop; ++i) {
                image[i] = static_cast<unsigned char>(random.next());
            }
            ++tally.garbage_sectors;
        }  // outcome 1: the sector kept its old bytes
    }
}

Bytes PendingFile::image_after_cut(CutMode mode, const DeviceModel& device, CutRandom& random,
                                   CutTally& tally) const {
    Bytes image = durable_;
    for (const Operation& op : pending_) {
        std::uint32_t outcome = 0;  // 0 keep, 1 drop, 2 tear
        if (mode == CutMode::kDropAllPending) {
            outcome = 1;
        } else if (mode == CutMode::kRandom) {
            outcome = random.below(op.truncate_to >= 0 ? 2 : 3);
        }
        if (outcome == 0) {
            apply(op, image);
            ++tally.kept;
        } else if (outcome == 1) {
            ++tally.dropped;
        } else {
            tear(op, device, random, image, tally);
            ++tally.torn;
        }
    }
    return image;
}

}  // namespace outpost::testing
