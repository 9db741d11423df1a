// An I/O error injector under SQLite: a VFS that forwards every call to the
// VFS below it (the default one unless told otherwise) and makes chosen calls
// fail, once (a transient error: a cable glitch, a full queue) or from then on
// (a persistent one: a dead card) until cleared.
//
//   auto vfs = IoErrorVfs::create("ioerr", "", &error);
//   options.vfs_name = "ioerr";
//   vfs->inject({IoOp::kSync, /*nth=*/2, /*persistent=*/false});
//
// Model. A failed call does nothing below this layer: a failed write leaves
// the file unchanged, a failed sync leaves the data where the OS had it (a
// later sync flushes it). This is the kind reading of Linux: ext4 may instead
// drop the dirty pages after a failed writeback while reads still see them
// ("fsyncgate"); that case needs a power cut after the error to matter and is
// not modelled here.
//
// Thread safety: all calls and callbacks are serialised by one mutex.
#ifndef OUTPOST_PROOF_IO_ERROR_VFS_H
#define OUTPOST_PROOF_IO_ERROR_VFS_H

#include <cstdint>
#include <memory>
#include <string>

namespace outpost::faults {

// The calls that can be made to fail, and the SQLite code each returns.
enum class IoOp {
    kRead,      // SQLITE_IOERR_READ
    kWrite,     // SQLITE_IOERR_WRITE (or SQLITE_FULL, see IoFault::disk_full)
    kSync,      // SQLITE_IOERR_FSYNC
    kTruncate,  // SQLITE_IOERR_TRUNCATE
    kFileSize,  // SQLITE_IOERR_FSTAT
    kLock,      // SQLITE_IOERR_LOCK
    kOpen,      // SQLITE_CANTOPEN
    kDelete,    // SQLITE_IOERR_DELETE
    kAccess,    // SQLITE_IOERR_ACCESS
    kShmMap,    // SQLITE_IOERR_SHMMAP
};
inline constexpr IoOp kAllIoOps[] = {IoOp::kRead,     IoOp::kWrite, IoOp::kSync, IoOp::kTruncate,
                                     IoOp::kFileSize, IoOp::kLock,  IoOp::kOpen, IoOp::kDelete,
                                     IoOp::kAccess,   IoOp::kShmMap};
const char* io_op_name(IoOp op);

struct IoFault {
    IoOp op = IoOp::kWrite;
    // The n-th call of `op` after inject() fails (1 = the next one).
    uint64_t nth = 1;
    // False: only that call fails. True: it and every later call of `op`
    // fail until clear().
    bool persistent = false;
    // kWrite only: fail with SQLITE_FULL (ENOSPC) instead of an I/O error.
    bool disk_full = false;
    // Only calls on files whose path ends with this suffix ("-wal", ".db")
    // count and fail; empty means every file.
    std::string path_suffix;
};

class IoErrorVfs final {
  public:
    // Registers a VFS named `name` on top of the VFS named `below` (empty:
    // the current default). nullptr and *error set if the name is taken or
    // `below` does not exist. The object owns the registration.
    static std::unique_ptr<IoErrorVfs> create(const std::string& name, const std::string& below,
                                              std::string* error);
    // Unregisters; every connection through it must be closed first.
    ~IoErrorVfs();
    IoErrorVfs(const IoErrorVfs&) = delete;
    IoErrorVfs& operator=(const IoErrorVfs&) = delete;

    const std::string& name() const;
    // Replaces any fault injected before; counting starts now.
    void inject(const IoFault& fault);
    // Stops failing (a persistent fault is repaired). Counters stay.
    void clear();
    // Calls made to fail since creation.
    uint64_t failures() const;
    // Calls of `op` made through this VFS since creation, failed or not, on
    // any file: what a workload reaches, so a test can prove its fault can
    // fire.
    uint64_t calls(IoOp op) const;

    class Impl;

  private:
    explicit IoErrorVfs(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace outpost::faults

#endif  // OUTPOST_PROOF_IO_ERROR_VFS_H
