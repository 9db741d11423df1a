#include "proof/vm/guest/evidence_disk.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "proof/vm/disk_layout.h"

namespace outpost::torture::vm::guest {

EvidenceDisk::~EvidenceDisk() {
    ::close(fd_);
}

std::unique_ptr<EvidenceDisk> EvidenceDisk::open(const std::string& device, std::string* error) {
    const int fd = ::open(device.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0) {
        *error = "cannot open " + device + " for evidence records: " + std::strerror(errno);
        return nullptr;
    }
    return std::unique_ptr<EvidenceDisk>(new EvidenceDisk(fd));
}

bool EvidenceDisk::append(const std::string& line) {
    const uint64_t number = next_.fetch_add(1);
    const std::string record = encode_record(number, line);
    if (number >= kMaxRecords || record.empty()) return false;
    // O_DIRECT wants an aligned buffer; the sector is written as one request.
    void* buffer = nullptr;
    if (::posix_memalign(&buffer, kRecordBytes, kRecordBytes) != 0) return false;
    std::memcpy(buffer, record.data(), kRecordBytes);
    const off_t offset = static_cast<off_t>(kFsBytes + number * kRecordBytes);
    ssize_t wrote = -1;
    do {
        wrote = ::pwrite(fd_, buffer, kRecordBytes, offset);
    } while (wrote < 0 && errno == EINTR);
    std::free(buffer);
    return wrote == static_cast<ssize_t>(kRecordBytes);
}

bool read_records(const std::string& device, std::vector<std::string>* lines, std::string* error) {
    const int fd = ::open(device.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *error = "cannot open " + device + ": " + std::strerror(errno);
        return false;
    }
    uint8_t sector[kRecordBytes];
    for (uint64_t number = 0; number < kMaxRecords; ++number) {
        const off_t offset = static_cast<off_t>(kFsBytes + number * kRecordBytes);
        if (::pread(fd, sector, sizeof sector, offset) != static_cast<ssize_t>(sizeof sector)) {
            break;
        }
        const std::optional<Record> record = decode_record(sector);
        if (!record || record->number != number) break;
        lines->push_back(record->line);
    }
    ::close(fd);
    return true;
}

}  // namespace outpost::torture::vm::guest
