// Design note: the I/O error VFS.
//
// A shim (shim_vfs.h) on the VFS below: every file opened through it is an
// ErrorFile followed in memory by the file of the VFS below. Each hook it
// overrides asks should_fail(op, path) and either returns the op's error code
// without calling below, or forwards; the calls it does not override pass.
//
// Invariants:
//  1. A call made to fail never reaches the VFS below (nothing half-done).
//  2. Only calls of the injected op on matching paths are counted, so `nth`
//     means the same thing whatever else SQLite does in between.
//  3. The io_methods are version 2 (no xFetch): SQLite cannot read through a
//     memory map this layer does not see (shim_vfs.h, invariant 2).
//  4. Unlock, close and shm unmap always pass: they release resources and a
//     test must be able to close its connections after any fault.
#include "proof/io_error_vfs.h"

#include <sqlite3.h>

#include <array>
#include <cstddef>
#include <iterator>
#include <mutex>
#include <new>
#include <utility>

#include "proof/shim_vfs.h"

namespace outpost::faults {

namespace {

struct ErrorFile : testing::ShimFile {
    std::string path;
};

}  // namespace

class IoErrorVfs::Impl final : public testing::ShimVfs {
  public:
    Impl(std::string vfs_name, sqlite3_vfs* below_vfs)
        : ShimVfs(std::move(vfs_name), below_vfs, sizeof(ErrorFile)) {}

    // Counts one call of `op` on `path`; true if it must fail (invariant 2).
    bool should_fail(IoOp op, const char* path) {
        std::lock_guard<std::mutex> lock(mutex);
        ++calls_of[static_cast<size_t>(op)];
        if (!armed || op != fault.op) return false;
        if (!fault.path_suffix.empty()) {
            const std::string file = path != nullptr ? path : "";
            const std::string& suffix = fault.path_suffix;
            if (file.size() < suffix.size() ||
                file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) {
                return false;
            }
        }
        ++calls;
        const bool fails = fault.persistent ? calls >= fault.nth : calls == fault.nth;
        if (fails) ++failures;
        return fails;
    }
    bool write_fails_full() {
        std::lock_guard<std::mutex> lock(mutex);
        return fault.disk_full;
    }

    std::mutex mutex;
    bool armed = false;  // guarded by mutex, as the four below
    IoFault fault;
    uint64_t calls = 0;  // of the armed op on matching files, since inject()
    uint64_t failures = 0;
    std::array<uint64_t, std::size(kAllIoOps)> calls_of{};  // by IoOp, since creation

  private:
    using ShimFile = testing::ShimFile;

    bool fails(ShimFile& file, IoOp op) {
        return should_fail(op, static_cast<ErrorFile&>(file).path.c_str());
    }

    // The hooks that can fail; every other call passes (invariant 4).
    int open(const char* name, sqlite3_file* file, int flags, int* out_flags) override {
        if (should_fail(IoOp::kOpen, name)) return SQLITE_CANTOPEN;
        ErrorFile* self;
        try {
            self = new (file) ErrorFile{{{nullptr}, this}, name != nullptr ? name : ""};
        } catch (...) {
            return SQLITE_NOMEM;
        }
        const int rc = open_below(name, *self, flags, out_flags);
        if (rc != SQLITE_OK) {
            self->~ErrorFile();
            return rc;
        }
        if (self->below_methods().iVersion < 2) {  // no shared memory below: not ours to emulate
            self->below_methods().xClose(self->below());
            self->~ErrorFile();
            return SQLITE_CANTOPEN;
        }
        return SQLITE_OK;
    }
    int delete_file(const char* name, int sync_dir) override {
        if (should_fail(IoOp::kDelete, name)) return SQLITE_IOERR_DELETE;
        return ShimVfs::delete_file(name, sync_dir);
    }
    int access(const char* name, int flags, int* result) override {
        if (should_fail(IoOp::kAccess, name)) return SQLITE_IOERR_ACCESS;
        return ShimVfs::access(name, flags, result);
    }
    int close(ShimFile& file) override {
        const int rc = file.below_methods().xClose(file.below());
        static_cast<ErrorFile&>(file).~ErrorFile();
        return rc;
    }
    int read(ShimFile& file, void* buffer, int amount, sqlite3_int64 offset) override {
        if (fails(file, IoOp::kRead)) return SQLITE_IOERR_READ;
        return ShimVfs::read(file, buffer, amount, offset);
    }
    int write(ShimFile& file, const void* data, int amount, sqlite3_int64 offset) override {
        if (fails(file, IoOp::kWrite)) return write_fails_full() ? SQLITE_FULL : SQLITE_IOERR_WRITE;
        return ShimVfs::write(file, data, amount, offset);
    }
    int truncate(ShimFile& file, sqlite3_int64 size) override {
        if (fails(file, IoOp::kTruncate)) return SQLITE_IOERR_TRUNCATE;
        return ShimVfs::truncate(file, size);
    }
    int sync(ShimFile& file, int flags) override {
        if (fails(file, IoOp::kSync)) return SQLITE_IOERR_FSYNC;
        return ShimVfs::sync(file, flags);
    }
    int file_size(ShimFile& file, sqlite3_int64* size) override {
        if (fails(file, IoOp::kFileSize)) return SQLITE_IOERR_FSTAT;
        return ShimVfs::file_size(file, size);
    }
    int lock(ShimFile& file, int level) override {
        if (fails(file, IoOp::kLock)) return SQLITE_IOERR_LOCK;
        return ShimVfs::lock(file, level);
    }
    int shm_map(ShimFile& file, int region, int size, int extend, void volatile** out) override {
        if (fails(file, IoOp::kShmMap)) return SQLITE_IOERR_SHMMAP;
        return ShimVfs::shm_map(file, region, size, extend, out);
    }
};

const char* io_op_name(IoOp op) {
    switch (op) {
        case IoOp::kRead:
            return "read";
        case IoOp::kWrite:
            return "write";
        case IoOp::kSync:
            return "sync";
        case IoOp::kTruncate:
            return "truncate";
        case IoOp::kFileSize:
            return "file_size";
        case IoOp::kLock:
            return "lock";
        case IoOp::kOpen:
            return "open";
        case IoOp::kDelete:
            return "delete";
        case IoOp::kAccess:
            return "access";
        case IoOp::kShmMap:
            return "shm_map";
    }
    return "?";
}

std::unique_ptr<IoErrorVfs> IoErrorVfs::create(const std::string& name,
                                               const std::string& below_name, std::string* error) {
    sqlite3_vfs* real = sqlite3_vfs_find(below_name.empty() ? nullptr : below_name.c_str());
    if (real == nullptr) {
        *error = "no VFS named '" + below_name + "' to put the I/O error VFS on";
        return nullptr;
    }
    auto impl = std::make_unique<Impl>(name, real);
    if (!impl->register_vfs(error)) return nullptr;
    return std::unique_ptr<IoErrorVfs>(new IoErrorVfs(std::move(impl)));
}

IoErrorVfs::IoErrorVfs(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
IoErrorVfs::~IoErrorVfs() = default;  // Impl unregisters the VFS
const std::string& IoErrorVfs::name() const {
    return impl_->name();
}

void IoErrorVfs::inject(const IoFault& fault) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->armed = true;
    impl_->fault = fault;
    impl_->calls = 0;
}

void IoErrorVfs::clear() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->armed = false;
}

uint64_t IoErrorVfs::failures() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->failures;
}

uint64_t IoErrorVfs::calls(IoOp op) const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->calls_of[static_cast<size_t>(op)];
}

}  // namespace outpost::faults
