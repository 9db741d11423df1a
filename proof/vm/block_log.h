// A block-write log in the dm-log-writes format, as QEMU's `blklogwrites`
// block driver records it for a guest's disk: every write, discard and flush
// the guest's disk completed, in order, with the data of every write.
//
// Format (Linux Documentation/admin-guide/device-mapper/log-writes.rst and
// QEMU block/blklogwrites.c; all integers little-endian):
//   sector 0      super block: u64 magic 0x6a736677736872, u64 version (1),
//                 u64 nr_entries, u32 sector size; the rest of the sector zero
//   sector 1...   one entry after the other, each starting on a sector:
//                   u64 sector      first disk sector written (in log sectors)
//                   u64 nr_sectors  how many
//                   u64 flags       FLUSH 1, FUA 2, DISCARD 4, MARK 8, METADATA 16
//                   u64 data_len    bytes of private data (a mark's text) after
//                                   the header in the same sector
//                 then, except for discards and marks, nr_sectors sectors of
//                 the data written.
// QEMU updates nr_entries only when it logs a flush, so entries after the
// last flush are counted by reading on to the end of the file.
//
// Order: QEMU appends an entry when the request completes on the host, and a
// flush entry once the host flush completed. A write the guest saw complete
// before it issued a flush is therefore always before that flush in the log.
// (A write that completed while the flush was running is before it as well;
// replay treats it as covered by that flush, which a real disk need not do.
// The Linux target logs writes at the next flush and has no such case.)
#ifndef OUTPOST_PROOF_VM_BLOCK_LOG_H
#define OUTPOST_PROOF_VM_BLOCK_LOG_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace outpost::torture::vm {

constexpr uint64_t kLogFlush = 1;
constexpr uint64_t kLogFua = 2;
constexpr uint64_t kLogDiscard = 4;
constexpr uint64_t kLogMark = 8;
constexpr uint64_t kLogMetadata = 16;

struct LogEntry {
    uint64_t flags = 0;
    uint64_t sector = 0;       // in log sectors (BlockLog::sector_size())
    uint64_t sectors = 0;      // 0 for a flush or a mark
    uint64_t data_offset = 0;  // byte offset of the written data in the log file
    std::string mark;          // a mark's text

    bool is_flush() const { return (flags & kLogFlush) != 0; }
    bool is_discard() const { return (flags & kLogDiscard) != 0; }
    bool is_mark() const { return (flags & kLogMark) != 0; }
    // Carries data to apply to the disk.
    bool is_write() const { return sectors > 0 && !is_discard() && !is_mark(); }
};

class BlockLog final {
  public:
    // Reads the log file at `path` (mapped, read-only). nullptr with *error
    // set when it is not a dm-log-writes log, or is damaged: a bad magic or
    // version, an entry with unknown flags or running past the end of the
    // file, or fewer entries than the super block counts.
    static std::unique_ptr<BlockLog> open(const std::string& path, std::string* error);
    ~BlockLog();
    BlockLog(const BlockLog&) = delete;
    BlockLog& operator=(const BlockLog&) = delete;

    uint32_t sector_size() const { return sector_size_; }
    const std::vector<LogEntry>& entries() const { return entries_; }
    // The entries the super block counted (those up to the last flush).
    uint64_t counted_entries() const { return counted_; }
    // The data of a write entry: entry.sectors * sector_size() bytes.
    const uint8_t* data(const LogEntry& entry) const { return base_ + entry.data_offset; }
    // The index of the first entry that starts at or after byte `offset` of
    // the log file (entries().size() if none): every entry QEMU allocated
    // after the file was `offset` bytes long has at least this index.
    size_t first_entry_at_or_after(uint64_t offset) const;

  private:
    BlockLog() = default;
    const uint8_t* base_ = nullptr;
    size_t length_ = 0;
    uint32_t sector_size_ = 0;
    uint64_t counted_ = 0;
    std::vector<LogEntry> entries_;
    std::vector<uint64_t> entry_offsets_;  // byte offset of each entry's header
};

}  // namespace outpost::torture::vm

#endif  // OUTPOST_PROOF_VM_BLOCK_LOG_H
