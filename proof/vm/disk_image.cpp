#include "proof/vm/disk_image.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>

namespace outpost::torture::vm {
namespace {

constexpr size_t kBlock = 4096;

bool all_zero(const uint8_t* data, size_t size) {
    for (size_t i = 0; i < size; ++i) {
        if (data[i] != 0) return false;
    }
    return true;
}

}  // namespace

std::unique_ptr<DiskImage> DiskImage::load(const std::string& path, std::string* error) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat info {};
    if (fd < 0 || ::fstat(fd, &info) != 0) {
        *error = "cannot open " + path + ": " + std::strerror(errno);
        if (fd >= 0) ::close(fd);
        return nullptr;
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(info.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t got =
            ::pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
        if (got <= 0) {
            *error = "cannot read " + path + ": " + (got < 0 ? std::strerror(errno) : "short");
            ::close(fd);
            return nullptr;
        }
        done += static_cast<size_t>(got);
    }
    ::close(fd);
    return std::make_unique<DiskImage>(std::move(bytes));
}

void DiskImage::apply(const BlockLog& log, const LogEntry& entry, const std::vector<bool>& sectors,
                      uint64_t limit) {
    if (!entry.is_write() && !entry.is_discard()) return;
    const uint64_t sector_size = log.sector_size();
    const uint64_t end = std::min<uint64_t>(limit, bytes_.size());
    for (uint64_t s = 0; s < entry.sectors; ++s) {
        if (!sectors.empty() && !sectors[s]) continue;
        const uint64_t offset = (entry.sector + s) * sector_size;
        if (offset >= end) break;
        const uint64_t size = std::min(sector_size, end - offset);
        if (entry.is_discard()) {
            std::memset(bytes_.data() + offset, 0, size);
        } else {
            std::memcpy(bytes_.data() + offset, log.data(entry) + s * sector_size, size);
        }
    }
}

void DiskImage::write(uint64_t offset, const std::string& data) {
    if (offset >= bytes_.size()) return;
    const size_t size = std::min<size_t>(data.size(), bytes_.size() - offset);
    std::memcpy(bytes_.data() + offset, data.data(), size);
}

bool DiskImage::save(const std::string& path, std::string* error) const {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(bytes_.size())) != 0) {
        *error = "cannot create " + path + ": " + std::strerror(errno);
        if (fd >= 0) ::close(fd);
        return false;
    }
    for (size_t offset = 0; offset < bytes_.size(); offset += kBlock) {
        const size_t size = std::min(kBlock, bytes_.size() - offset);
        if (all_zero(bytes_.data() + offset, size)) continue;
        if (::pwrite(fd, bytes_.data() + offset, size, static_cast<off_t>(offset)) !=
            static_cast<ssize_t>(size)) {
            *error = "cannot write " + path + ": " + std::strerror(errno);
            ::close(fd);
            return false;
        }
    }
    return ::close(fd) == 0;
}

void Replayer::advance_to(size_t end) {
    for (; applied_ < end; ++applied_) {
        image_.apply(log_, log_.entries()[applied_], {}, limit_);
    }
}

DiskImage Replayer::state(const CrashState& state) {
    assert(state.prefix_end >= applied_ && "crash states are replayed in prefix order");
    advance_to(state.prefix_end);
    DiskImage copy = image_;
    for (const SurvivingWrite& write : surviving_tail(log_, state)) {
        copy.apply(log_, log_.entries()[write.entry], write.sectors, limit_);
    }
    return copy;
}

const DiskImage& Replayer::finish() {
    advance_to(log_.entries().size());
    return image_;
}

}  // namespace outpost::torture::vm
