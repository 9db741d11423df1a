#include "proof/vm/block_log.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace outpost::torture::vm {
namespace {

constexpr uint64_t kSuperMagic = 0x6a736677736872ull;
constexpr uint64_t kVersion = 1;
constexpr uint64_t kKnownFlags = kLogFlush | kLogFua | kLogDiscard | kLogMark | kLogMetadata;
constexpr size_t kHeaderBytes = 32;  // four u64 of an entry, or the super block's 28 + padding

uint64_t le64(const uint8_t* at) {
    uint64_t value = 0;
    for (int i = 7; i >= 0; --i) value = (value << 8) | at[i];
    return value;
}

uint32_t le32(const uint8_t* at) {
    return static_cast<uint32_t>(at[0]) | static_cast<uint32_t>(at[1]) << 8 |
           static_cast<uint32_t>(at[2]) << 16 | static_cast<uint32_t>(at[3]) << 24;
}

bool power_of_two(uint32_t value) {
    return value != 0 && (value & (value - 1)) == 0;
}

}  // namespace

BlockLog::~BlockLog() {
    if (base_ != nullptr) ::munmap(const_cast<uint8_t*>(base_), length_);
}

std::unique_ptr<BlockLog> BlockLog::open(const std::string& path, std::string* error) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *error = "cannot open " + path + ": " + std::strerror(errno);
        return nullptr;
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0 || info.st_size < static_cast<off_t>(kHeaderBytes)) {
        *error = path + ": too short for a dm-log-writes super block";
        ::close(fd);
        return nullptr;
    }
    std::unique_ptr<BlockLog> log(new BlockLog());
    log->length_ = static_cast<size_t>(info.st_size);
    void* mapped = ::mmap(nullptr, log->length_, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (mapped == MAP_FAILED) {
        *error = "cannot map " + path + ": " + std::strerror(errno);
        return nullptr;
    }
    log->base_ = static_cast<const uint8_t*>(mapped);
    const uint8_t* super = log->base_;
    if (le64(super) != kSuperMagic || le64(super + 8) != kVersion) {
        *error = path + ": not a dm-log-writes log (magic or version)";
        return nullptr;
    }
    log->counted_ = le64(super + 16);
    log->sector_size_ = le32(super + 24);
    const uint64_t sector = log->sector_size_;
    if (!power_of_two(log->sector_size_) || sector < kHeaderBytes || sector > (1u << 24)) {
        *error = path + ": bad sector size " + std::to_string(sector);
        return nullptr;
    }
    // Entries follow the super block's sector until the end of the file.
    uint64_t offset = sector;
    while (offset + sector <= log->length_) {
        const uint8_t* header = log->base_ + offset;
        LogEntry entry;
        entry.sector = le64(header);
        entry.sectors = le64(header + 8);
        entry.flags = le64(header + 16);
        const uint64_t data_len = le64(header + 24);
        const std::string where = path + ": entry " + std::to_string(log->entries_.size()) +
                                  " at byte " + std::to_string(offset);
        if ((entry.flags & ~kKnownFlags) != 0 || data_len > sector - kHeaderBytes) {
            *error = where + ": unknown flags or data length (damaged log)";
            return nullptr;
        }
        if (entry.is_mark()) {
            entry.mark.assign(reinterpret_cast<const char*>(header + kHeaderBytes), data_len);
        }
        const uint64_t data_sectors = entry.is_discard() || entry.is_mark() ? 0 : entry.sectors;
        entry.data_offset = offset + sector;
        if (data_sectors > (log->length_ - entry.data_offset) / sector) {
            *error = where + ": its data runs past the end of the file";
            return nullptr;
        }
        log->entry_offsets_.push_back(offset);
        log->entries_.push_back(std::move(entry));
        offset += sector * (1 + data_sectors);
    }
    if (log->entries_.size() < log->counted_) {
        *error = path + ": the super block counts " + std::to_string(log->counted_) +
                 " entries, the file holds " + std::to_string(log->entries_.size());
        return nullptr;
    }
    return log;
}

size_t BlockLog::first_entry_at_or_after(uint64_t offset) const {
    return static_cast<size_t>(
        std::lower_bound(entry_offsets_.begin(), entry_offsets_.end(), offset) -
        entry_offsets_.begin());
}

}  // namespace outpost::torture::vm
