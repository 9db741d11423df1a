// The gateway VM's data disk, shared by the host (which builds and replays
// it) and the guest (which writes evidence to it).
//
//   [0, kFsBytes)                      ext4, mounted at /data like a gateway's
//                                      data partition; the store lives in
//                                      /data/outpost/outbox.db
//   [kFsBytes, kFsBytes + kEvidenceBytes)  evidence records, outside the file
//                                      system: one 512-byte sector each
//
// Why evidence on the recorded disk: the guest writes the record of an
// acknowledged alarm (O_DIRECT, its own sector) only after outpostd answered,
// i.e. after the flush that made the alarm durable completed. The record's
// write therefore lands in the block log after that flush, and a crash state
// cut at any later flush must hold the alarm. Likewise the record of a call's
// start is written before its request leaves, so nothing the call writes can
// precede it in the log. The log orders the evidence and the file system's
// writes on one time line, which no side channel can.
//
// Record format: "OPEV <number> <line>\n", zero-padded to 512 bytes; <line>
// is an evidence line (faults/evidence.h) or, written by the host into a
// crash state, a call for the guest to retry ("R <token> <key|->").
#ifndef OUTPOST_PROOF_VM_DISK_LAYOUT_H
#define OUTPOST_PROOF_VM_DISK_LAYOUT_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace outpost::torture::vm {

// Two block groups of ext4's default size at 4 KiB blocks (128 MiB, the
// second one short), so that, as on a gateway's partition, a backup
// superblock exists for e2fsck -y to repair a torn one from: one group,
// which a smaller file system gets, has none.
constexpr uint64_t kFsBytes = 136ull * 1024 * 1024;
constexpr uint64_t kEvidenceBytes = 8ull * 1024 * 1024;
constexpr uint64_t kDiskBytes = kFsBytes + kEvidenceBytes;
constexpr size_t kRecordBytes = 512;
constexpr uint64_t kMaxRecords = kEvidenceBytes / kRecordBytes;
// Where the guest mounts the file system, and the store below it.
constexpr const char* kGuestMount = "/data";
constexpr const char* kStoreDir = "outpost";
constexpr const char* kStoreName = "outbox.db";

// The 512 bytes of record `number` holding `line` (at most 480 bytes, no
// newline; longer lines are refused with an empty result).
std::string encode_record(uint64_t number, const std::string& line);

struct Record {
    uint64_t number = 0;
    std::string line;
};
// The record in `sector` (kRecordBytes), or nullopt if it holds none.
std::optional<Record> decode_record(const uint8_t* sector);

}  // namespace outpost::torture::vm

#endif  // OUTPOST_PROOF_VM_DISK_LAYOUT_H
