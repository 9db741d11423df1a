// Writes dm-log-writes logs for the replay tests, byte by byte from the
// format described in proof/vm/block_log.h (the way QEMU's
// blklogwrites lays them out), so the reader is tested against the format,
// not against itself.
#ifndef OUTPOST_TESTS_VM_REPLAY_LOG_BUILDER_H
#define OUTPOST_TESTS_VM_REPLAY_LOG_BUILDER_H

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "proof/vm/block_log.h"

namespace outpost::testing {

class LogBuilder final {
  public:
    explicit LogBuilder(uint32_t sector_size = 512) : sector_(sector_size) {}

    // A write of `sectors` sectors at `sector`, every byte `fill`.
    LogBuilder& write(uint64_t sector, uint64_t sectors, uint8_t fill, uint64_t flags = 0) {
        entry(sector, sectors, flags, 0);
        body_.append(sectors * sector_, static_cast<char>(fill));
        return *this;
    }
    // A flush; QEMU rewrites the super block's count at each one.
    LogBuilder& flush() {
        entry(0, 0, torture::vm::kLogFlush, 0);
        counted_ = entries_;
        return *this;
    }
    LogBuilder& discard(uint64_t sector, uint64_t sectors) {
        entry(sector, sectors, torture::vm::kLogDiscard, 0);
        return *this;
    }
    LogBuilder& raw_entry(uint64_t sector, uint64_t sectors, uint64_t flags, uint64_t data_len) {
        entry(sector, sectors, flags, data_len);
        return *this;
    }
    LogBuilder& count(uint64_t entries) {
        counted_ = entries;
        return *this;
    }

    // The log file's bytes: super block, then the entries.
    std::string bytes(uint64_t magic = 0x6a736677736872ull) const {
        std::string super;
        le(super, magic, 8);
        le(super, 1, 8);
        le(super, counted_, 8);
        le(super, sector_, 4);
        super.resize(sector_, '\0');
        return super + body_;
    }
    void save(const std::string& path, uint64_t magic = 0x6a736677736872ull) const {
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes(magic);
    }

  private:
    static void le(std::string& out, uint64_t value, int bytes) {
        for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
    }
    void entry(uint64_t sector, uint64_t sectors, uint64_t flags, uint64_t data_len) {
        std::string header;
        le(header, sector, 8);
        le(header, sectors, 8);
        le(header, flags, 8);
        le(header, data_len, 8);
        header.resize(sector_, '\0');
        body_ += header;
        ++entries_;
    }
    uint32_t sector_;
    uint64_t entries_ = 0;
    uint64_t counted_ = 0;
    std::string body_;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_VM_REPLAY_LOG_BUILDER_H
