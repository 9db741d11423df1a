// Design note: the I/O error VFS.
//
// Every file opened through it is an ErrorFile followed in memory by the file
// of the VFS below, so szOsFile is the sum (as in the power-cut VFS). Each
// callback asks should_fail(op, path) and either returns the op's error code
// without calling below, or forwards.
//
// Invariants:
//  1. A call made to fail never reaches the VFS below (nothing half-done).
//  2. Only calls of the injected op on matching paths are counted, so `nth`
//     means the same thing whatever else SQLite does in between.
//  3. The io_methods are version 2 (no xFetch): SQLite cannot read through a
//     memory map this layer does not see.
//  4. Unlock, close and shm unmap always pass: they release resources and a
//     test must be able to close its connections after any fault.
#include "proof/io_error_vfs.h"

#include <sqlite3.h>

#include <array>
#include <cstddef>
#include <iterator>
#include <mutex>
#include <new>

namespace outpost::faults {

class IoErrorVfs::Impl final {
  public:
    Impl(std::string vfs_name, sqlite3_vfs* below_vfs)
        : name(std::move(vfs_name)), below(below_vfs) {}

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

    sqlite3_vfs vfs{};
    const std::string name;
    sqlite3_vfs* const below;
    std::mutex mutex;
    bool armed = false;  // guarded by mutex, as the four below
    IoFault fault;
    uint64_t calls = 0;  // of the armed op on matching files, since inject()
    uint64_t failures = 0;
    std::array<uint64_t, std::size(kAllIoOps)> calls_of{};  // by IoOp, since creation
};

namespace {

using Impl = IoErrorVfs::Impl;

struct ErrorFile {
    sqlite3_file base;  // first: SQLite casts to it
    Impl* owner;
    std::string path;
};

constexpr size_t kBelowOffset = (sizeof(ErrorFile) + alignof(std::max_align_t) - 1) /
                                alignof(std::max_align_t) * alignof(std::max_align_t);

ErrorFile* self(sqlite3_file* file) {
    return reinterpret_cast<ErrorFile*>(file);
}
sqlite3_file* below(sqlite3_file* file) {
    return reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + kBelowOffset);
}
const sqlite3_io_methods& methods(sqlite3_file* file) {
    return *below(file)->pMethods;
}
bool fails(sqlite3_file* file, IoOp op) {
    return self(file)->owner->should_fail(op, self(file)->path.c_str());
}
Impl& owner(sqlite3_vfs* vfs) {
    return *static_cast<Impl*>(vfs->pAppData);
}

int x_close(sqlite3_file* file) {
    int rc = methods(file).xClose(below(file));
    self(file)->~ErrorFile();
    return rc;
}
int x_read(sqlite3_file* file, void* buffer, int amount, sqlite3_int64 offset) {
    if (fails(file, IoOp::kRead)) return SQLITE_IOERR_READ;
    return methods(file).xRead(below(file), buffer, amount, offset);
}
int x_write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
    if (fails(file, IoOp::kWrite)) {
        return self(file)->owner->write_fails_full() ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    }
    return methods(file).xWrite(below(file), data, amount, offset);
}
int x_truncate(sqlite3_file* file, sqlite3_int64 size) {
    if (fails(file, IoOp::kTruncate)) return SQLITE_IOERR_TRUNCATE;
    return methods(file).xTruncate(below(file), size);
}
int x_sync(sqlite3_file* file, int flags) {
    if (fails(file, IoOp::kSync)) return SQLITE_IOERR_FSYNC;
    return methods(file).xSync(below(file), flags);
}
int x_file_size(sqlite3_file* file, sqlite3_int64* size) {
    if (fails(file, IoOp::kFileSize)) return SQLITE_IOERR_FSTAT;
    return methods(file).xFileSize(below(file), size);
}
int x_lock(sqlite3_file* file, int level) {
    if (fails(file, IoOp::kLock)) return SQLITE_IOERR_LOCK;
    return methods(file).xLock(below(file), level);
}
int x_unlock(sqlite3_file* file, int level) {
    return methods(file).xUnlock(below(file), level);
}
int x_check_reserved_lock(sqlite3_file* file, int* out) {
    return methods(file).xCheckReservedLock(below(file), out);
}
int x_file_control(sqlite3_file* file, int op, void* arg) {
    if (op == SQLITE_FCNTL_MMAP_SIZE) {  // invariant 3
        *static_cast<sqlite3_int64*>(arg) = 0;
        return SQLITE_OK;
    }
    return methods(file).xFileControl(below(file), op, arg);
}
int x_sector_size(sqlite3_file* file) {
    return methods(file).xSectorSize(below(file));
}
int x_device_characteristics(sqlite3_file* file) {
    return methods(file).xDeviceCharacteristics(below(file));
}
int x_shm_map(sqlite3_file* file, int region, int size, int extend, void volatile** out) {
    if (fails(file, IoOp::kShmMap)) return SQLITE_IOERR_SHMMAP;
    return methods(file).xShmMap(below(file), region, size, extend, out);
}
int x_shm_lock(sqlite3_file* file, int offset, int count, int flags) {
    return methods(file).xShmLock(below(file), offset, count, flags);
}
void x_shm_barrier(sqlite3_file* file) {
    methods(file).xShmBarrier(below(file));
}
int x_shm_unmap(sqlite3_file* file, int delete_flag) {
    return methods(file).xShmUnmap(below(file), delete_flag);
}

const sqlite3_io_methods kIoMethods = {
    2,
    x_close,
    x_read,
    x_write,
    x_truncate,
    x_sync,
    x_file_size,
    x_lock,
    x_unlock,
    x_check_reserved_lock,
    x_file_control,
    x_sector_size,
    x_device_characteristics,
    x_shm_map,
    x_shm_lock,
    x_shm_barrier,
    x_shm_unmap,
    nullptr,
    nullptr,
};

int v_open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags, int* out_flags) {
    Impl& impl = owner(vfs);
    file->pMethods = nullptr;
    if (impl.should_fail(IoOp::kOpen, name)) return SQLITE_CANTOPEN;
    ErrorFile* wrapper;
    try {
        wrapper = new (file) ErrorFile{{nullptr}, &impl, name != nullptr ? name : ""};
    } catch (...) {
        return SQLITE_NOMEM;
    }
    int rc = impl.below->xOpen(impl.below, name, below(file), flags, out_flags);
    if (rc != SQLITE_OK || below(file)->pMethods == nullptr) {
        wrapper->~ErrorFile();
        return rc != SQLITE_OK ? rc : SQLITE_CANTOPEN;
    }
    if (below(file)->pMethods->iVersion < 2) {  // no shared memory below: not ours to emulate
        below(file)->pMethods->xClose(below(file));
        wrapper->~ErrorFile();
        return SQLITE_CANTOPEN;
    }
    file->pMethods = &kIoMethods;
    return SQLITE_OK;
}
int v_delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
    if (owner(vfs).should_fail(IoOp::kDelete, name)) return SQLITE_IOERR_DELETE;
    return owner(vfs).below->xDelete(owner(vfs).below, name, sync_dir);
}
int v_access(sqlite3_vfs* vfs, const char* name, int flags, int* out) {
    if (owner(vfs).should_fail(IoOp::kAccess, name)) return SQLITE_IOERR_ACCESS;
    return owner(vfs).below->xAccess(owner(vfs).below, name, flags, out);
}
int v_full_pathname(sqlite3_vfs* vfs, const char* name, int size, char* out) {
    return owner(vfs).below->xFullPathname(owner(vfs).below, name, size, out);
}
void* v_dl_open(sqlite3_vfs* vfs, const char* name) {
    return owner(vfs).below->xDlOpen(owner(vfs).below, name);
}
void v_dl_error(sqlite3_vfs* vfs, int size, char* out) {
    owner(vfs).below->xDlError(owner(vfs).below, size, out);
}
void (*v_dl_sym(sqlite3_vfs* vfs, void* handle, const char* symbol))(void) {
    return owner(vfs).below->xDlSym(owner(vfs).below, handle, symbol);
}
void v_dl_close(sqlite3_vfs* vfs, void* handle) {
    owner(vfs).below->xDlClose(owner(vfs).below, handle);
}
int v_randomness(sqlite3_vfs* vfs, int size, char* out) {
    return owner(vfs).below->xRandomness(owner(vfs).below, size, out);
}
int v_sleep(sqlite3_vfs* vfs, int microseconds) {
    return owner(vfs).below->xSleep(owner(vfs).below, microseconds);
}
int v_current_time(sqlite3_vfs* vfs, double* out) {
    return owner(vfs).below->xCurrentTime(owner(vfs).below, out);
}
int v_get_last_error(sqlite3_vfs* vfs, int size, char* out) {
    sqlite3_vfs* real = owner(vfs).below;
    return real->xGetLastError != nullptr ? real->xGetLastError(real, size, out) : 0;
}
int v_current_time_int64(sqlite3_vfs* vfs, sqlite3_int64* out) {
    sqlite3_vfs* real = owner(vfs).below;
    if (real->iVersion >= 2 && real->xCurrentTimeInt64 != nullptr) {
        return real->xCurrentTimeInt64(real, out);
    }
    double days = 0;
    int rc = real->xCurrentTime(real, &days);
    *out = static_cast<sqlite3_int64>(days * 86400000.0);
    return rc;
}

}  // namespace

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
    if (name.empty() || sqlite3_vfs_find(name.c_str()) != nullptr) {
        *error = "a VFS named '" + name + "' is already registered (or the name is empty)";
        return nullptr;
    }
    auto impl = std::make_unique<Impl>(name, real);
    sqlite3_vfs& vfs = impl->vfs;
    vfs.iVersion = 2;
    vfs.szOsFile = static_cast<int>(kBelowOffset) + real->szOsFile;
    vfs.mxPathname = real->mxPathname;
    vfs.zName = impl->name.c_str();
    vfs.pAppData = impl.get();
    vfs.xOpen = v_open;
    vfs.xDelete = v_delete;
    vfs.xAccess = v_access;
    vfs.xFullPathname = v_full_pathname;
    vfs.xDlOpen = v_dl_open;
    vfs.xDlError = v_dl_error;
    vfs.xDlSym = v_dl_sym;
    vfs.xDlClose = v_dl_close;
    vfs.xRandomness = v_randomness;
    vfs.xSleep = v_sleep;
    vfs.xCurrentTime = v_current_time;
    vfs.xGetLastError = v_get_last_error;
    vfs.xCurrentTimeInt64 = v_current_time_int64;
    int rc = sqlite3_vfs_register(&vfs, 0);
    if (rc != SQLITE_OK) {
        *error = std::string("sqlite3_vfs_register: ") + sqlite3_errstr(rc);
        return nullptr;
    }
    return std::unique_ptr<IoErrorVfs>(new IoErrorVfs(std::move(impl)));
}

IoErrorVfs::IoErrorVfs(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
IoErrorVfs::~IoErrorVfs() {
    sqlite3_vfs_unregister(&impl_->vfs);
}
const std::string& IoErrorVfs::name() const {
    return impl_->name;
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
