// The SQLite callbacks of every shim VFS, each calling its hook, and the
// hooks' pass-through defaults. The design note and the numbered invariants
// are in shim_vfs.h.
#include "proof/shim_vfs.h"

#include <utility>

namespace outpost::testing {

namespace {

std::size_t aligned(std::size_t size) {
    constexpr std::size_t kAlign = alignof(std::max_align_t);
    return (size + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

sqlite3_file* ShimFile::below() {
    return reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(this) + shim->below_offset_);
}

struct ShimVfs::Callbacks {
    static ShimVfs& shim(sqlite3_vfs* vfs) { return *static_cast<ShimVfs*>(vfs->pAppData); }
    static ShimFile& file(sqlite3_file* file) { return *reinterpret_cast<ShimFile*>(file); }
    static ShimVfs& shim(sqlite3_file* f) { return *file(f).shim; }

    // ---- io methods ----

    static int close(sqlite3_file* f) { return shim(f).close(file(f)); }
    static int read(sqlite3_file* f, void* buffer, int amount, sqlite3_int64 offset) {
        return shim(f).read(file(f), buffer, amount, offset);
    }
    static int write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
        return shim(f).write(file(f), data, amount, offset);
    }
    static int truncate(sqlite3_file* f, sqlite3_int64 size) {
        return shim(f).truncate(file(f), size);
    }
    static int sync(sqlite3_file* f, int flags) { return shim(f).sync(file(f), flags); }
    static int file_size(sqlite3_file* f, sqlite3_int64* size) {
        return shim(f).file_size(file(f), size);
    }
    static int lock(sqlite3_file* f, int level) { return shim(f).lock(file(f), level); }
    static int unlock(sqlite3_file* f, int level) { return shim(f).unlock(file(f), level); }
    static int check_reserved_lock(sqlite3_file* f, int* result) {
        return shim(f).check_reserved_lock(file(f), result);
    }
    static int file_control(sqlite3_file* f, int op, void* arg) {
        if (op == SQLITE_FCNTL_MMAP_SIZE) {  // invariant 2
            *static_cast<sqlite3_int64*>(arg) = 0;
            return SQLITE_OK;
        }
        return shim(f).file_control(file(f), op, arg);
    }
    static int sector_size(sqlite3_file* f) { return shim(f).sector_size(file(f)); }
    static int device_characteristics(sqlite3_file* f) {
        return shim(f).device_characteristics(file(f));
    }
    static int shm_map(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
        return shim(f).shm_map(file(f), region, size, extend, out);
    }
    static int shm_lock(sqlite3_file* f, int offset, int count, int flags) {
        return shim(f).shm_lock(file(f), offset, count, flags);
    }
    static void shm_barrier(sqlite3_file* f) { shim(f).shm_barrier(file(f)); }
    static int shm_unmap(sqlite3_file* f, int delete_flag) {
        return shim(f).shm_unmap(file(f), delete_flag);
    }

    // Version 2: shared memory, but no xFetch/xUnfetch (invariant 2).
    static constexpr sqlite3_io_methods kIoMethods = {
        2,
        close,
        read,
        write,
        truncate,
        sync,
        file_size,
        lock,
        unlock,
        check_reserved_lock,
        file_control,
        sector_size,
        device_characteristics,
        shm_map,
        shm_lock,
        shm_barrier,
        shm_unmap,
        nullptr,
        nullptr,
    };

    // ---- vfs methods: open, delete and access are hooks, the rest pass ----

    static int open(sqlite3_vfs* vfs, const char* name, sqlite3_file* f, int flags,
                    int* out_flags) {
        f->pMethods = nullptr;
        const int rc = shim(vfs).open(name, f, flags, out_flags);
        if (rc == SQLITE_OK) f->pMethods = &kIoMethods;  // invariant 3
        return rc;
    }
    static int delete_file(sqlite3_vfs* vfs, const char* name, int sync_dir) {
        return shim(vfs).delete_file(name, sync_dir);
    }
    static int access(sqlite3_vfs* vfs, const char* name, int flags, int* result) {
        return shim(vfs).access(name, flags, result);
    }
    static sqlite3_vfs* below(sqlite3_vfs* vfs) { return shim(vfs).below_; }
    static int full_pathname(sqlite3_vfs* vfs, const char* name, int size, char* out) {
        return below(vfs)->xFullPathname(below(vfs), name, size, out);
    }
    static void* dl_open(sqlite3_vfs* vfs, const char* name) {
        return below(vfs)->xDlOpen(below(vfs), name);
    }
    static void dl_error(sqlite3_vfs* vfs, int size, char* out) {
        below(vfs)->xDlError(below(vfs), size, out);
    }
    static void (*dl_sym(sqlite3_vfs* vfs, void* handle, const char* symbol))(void) {
        return below(vfs)->xDlSym(below(vfs), handle, symbol);
    }
    static void dl_close(sqlite3_vfs* vfs, void* handle) {
        below(vfs)->xDlClose(below(vfs), handle);
    }
    static int randomness(sqlite3_vfs* vfs, int size, char* out) {
        return below(vfs)->xRandomness(below(vfs), size, out);
    }
    static int sleep(sqlite3_vfs* vfs, int microseconds) {
        return below(vfs)->xSleep(below(vfs), microseconds);
    }
    static int current_time(sqlite3_vfs* vfs, double* out) {
        return below(vfs)->xCurrentTime(below(vfs), out);
    }
    static int get_last_error(sqlite3_vfs* vfs, int size, char* out) {
        sqlite3_vfs* real = below(vfs);
        return real->xGetLastError != nullptr ? real->xGetLastError(real, size, out) : 0;
    }
    static int current_time_int64(sqlite3_vfs* vfs, sqlite3_int64* out) {
        sqlite3_vfs* real = below(vfs);
        if (real->iVersion >= 2 && real->xCurrentTimeInt64 != nullptr) {
            return real->xCurrentTimeInt64(real, out);
        }
        double days = 0;
        const int rc = real->xCurrentTime(real, &days);
        *out = static_cast<sqlite3_int64>(days * 86400000.0);
        return rc;
    }
};

ShimVfs::ShimVfs(std::string name, sqlite3_vfs* below, std::size_t file_size)
    : name_(std::move(name)), below_(below), below_offset_(aligned(file_size)) {
    vfs_.iVersion = 2;  // up to xCurrentTimeInt64; no system-call overrides
    vfs_.szOsFile = static_cast<int>(below_offset_) + below->szOsFile;
    vfs_.mxPathname = below->mxPathname;
    vfs_.pNext = nullptr;
    vfs_.zName = name_.c_str();
    vfs_.pAppData = this;
    vfs_.xOpen = Callbacks::open;
    vfs_.xDelete = Callbacks::delete_file;
    vfs_.xAccess = Callbacks::access;
    vfs_.xFullPathname = Callbacks::full_pathname;
    vfs_.xDlOpen = Callbacks::dl_open;
    vfs_.xDlError = Callbacks::dl_error;
    vfs_.xDlSym = Callbacks::dl_sym;
    vfs_.xDlClose = Callbacks::dl_close;
    vfs_.xRandomness = Callbacks::randomness;
    vfs_.xSleep = Callbacks::sleep;
    vfs_.xCurrentTime = Callbacks::current_time;
    vfs_.xGetLastError = Callbacks::get_last_error;
    vfs_.xCurrentTimeInt64 = Callbacks::current_time_int64;
}

ShimVfs::~ShimVfs() {
    sqlite3_vfs_unregister(&vfs_);  // a no-op if it was never registered
}

bool ShimVfs::register_vfs(std::string* error) {
    if (name_.empty() || sqlite3_vfs_find(name_.c_str()) != nullptr) {
        *error = "a VFS named '" + name_ + "' is already registered (or the name is empty)";
        return false;
    }
    const int rc = sqlite3_vfs_register(&vfs_, /*makeDflt=*/0);
    if (rc != SQLITE_OK) {
        *error = std::string("sqlite3_vfs_register failed: ") + sqlite3_errstr(rc);
        return false;
    }
    return true;
}

int ShimVfs::open_below(const char* name, ShimFile& file, int flags, int* out_flags) {
    const int rc = below_->xOpen(below_, name, file.below(), flags, out_flags);
    if (rc == SQLITE_OK && file.below()->pMethods == nullptr) return SQLITE_CANTOPEN;
    return rc;
}

// ---- the hooks' defaults: forward to the VFS below ----

int ShimVfs::delete_file(const char* name, int sync_dir) {
    return below_->xDelete(below_, name, sync_dir);
}
int ShimVfs::access(const char* name, int flags, int* result) {
    return below_->xAccess(below_, name, flags, result);
}
int ShimVfs::read(ShimFile& file, void* buffer, int amount, sqlite3_int64 offset) {
    return file.below_methods().xRead(file.below(), buffer, amount, offset);
}
int ShimVfs::write(ShimFile& file, const void* data, int amount, sqlite3_int64 offset) {
    return file.below_methods().xWrite(file.below(), data, amount, offset);
}
int ShimVfs::truncate(ShimFile& file, sqlite3_int64 size) {
    return file.below_methods().xTruncate(file.below(), size);
}
int ShimVfs::sync(ShimFile& file, int flags) {
    return file.below_methods().xSync(file.below(), flags);
}
int ShimVfs::file_size(ShimFile& file, sqlite3_int64* size) {
    return file.below_methods().xFileSize(file.below(), size);
}
int ShimVfs::lock(ShimFile& file, int level) {
    return file.below_methods().xLock(file.below(), level);
}
int ShimVfs::unlock(ShimFile& file, int level) {
    return file.below_methods().xUnlock(file.below(), level);
}
int ShimVfs::check_reserved_lock(ShimFile& file, int* result) {
    return file.below_methods().xCheckReservedLock(file.below(), result);
}
int ShimVfs::file_control(ShimFile& file, int op, void* arg) {
    return file.below_methods().xFileControl(file.below(), op, arg);
}
int ShimVfs::sector_size(ShimFile& file) {
    return file.below_methods().xSectorSize(file.below());
}
int ShimVfs::device_characteristics(ShimFile& file) {
    return file.below_methods().xDeviceCharacteristics(file.below());
}
int ShimVfs::shm_map(ShimFile& file, int region, int size, int extend, void volatile** out) {
    if (file.below_methods().iVersion < 2) return SQLITE_IOERR_SHMMAP;  // invariant 4
    return file.below_methods().xShmMap(file.below(), region, size, extend, out);
}
int ShimVfs::shm_lock(ShimFile& file, int offset, int count, int flags) {
    if (file.below_methods().iVersion < 2) return SQLITE_IOERR_SHMLOCK;
    return file.below_methods().xShmLock(file.below(), offset, count, flags);
}
void ShimVfs::shm_barrier(ShimFile& file) {
    if (file.below_methods().iVersion >= 2) file.below_methods().xShmBarrier(file.below());
}
int ShimVfs::shm_unmap(ShimFile& file, int delete_flag) {
    if (file.below_methods().iVersion < 2) return SQLITE_OK;
    return file.below_methods().xShmUnmap(file.below(), delete_flag);
}

}  // namespace outpost::testing
