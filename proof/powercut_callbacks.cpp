// The SQLite callbacks of the power-cut VFS: the sqlite3_vfs methods and the
// version-2 sqlite3_io_methods of every file opened through it. The design
// note and the numbered invariants are in powercut_vfs.cpp.
//
// Every callback catches everything: no exception may unwind through SQLite.
#include <sqlite3.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>

#include "proof/powercut_impl.h"

namespace outpost::testing {

namespace {

using Impl = PowercutVfs::Impl;

// What SQLite's sqlite3_file points to. The real unix file follows it at
// kRealOffset; szOsFile covers both.
struct PowercutFile {
    sqlite3_file base;  // must stay first: SQLite casts to it
    Impl* owner;
    FileKind kind;
    std::string path;                      // empty for temporary files
    std::shared_ptr<PendingFile> pending;  // null when not tracked
};

constexpr std::size_t kRealOffset = (sizeof(PowercutFile) + alignof(std::max_align_t) - 1) /
                                    alignof(std::max_align_t) * alignof(std::max_align_t);

PowercutFile* wrapper(sqlite3_file* file) {
    return reinterpret_cast<PowercutFile*>(file);
}
sqlite3_file* real_file(sqlite3_file* file) {
    return reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + kRealOffset);
}
const sqlite3_io_methods& real_methods(sqlite3_file* file) {
    return *real_file(file)->pMethods;
}
Impl& owner_of(sqlite3_vfs* vfs) {
    return *static_cast<Impl*>(vfs->pAppData);
}

FileKind kind_from_flags(int flags) {
    if (flags & SQLITE_OPEN_MAIN_DB) return FileKind::kMainDb;
    if (flags & SQLITE_OPEN_WAL) return FileKind::kWal;
    if (flags & SQLITE_OPEN_MAIN_JOURNAL) return FileKind::kJournal;
    return FileKind::kOther;
}

FileCounters& counters_of(Impl& impl, FileKind kind) {
    switch (kind) {
        case FileKind::kMainDb:
            return impl.counters.main_db;
        case FileKind::kWal:
            return impl.counters.wal;
        case FileKind::kJournal:
            return impl.counters.journal;
        case FileKind::kOther:
            break;
    }
    return impl.counters.other;
}

// Reads the whole real file: what the disk holds when we first see it.
int read_whole(sqlite3_file* real, Bytes* out) {
    sqlite3_int64 size = 0;
    int rc = real->pMethods->xFileSize(real, &size);
    if (rc != SQLITE_OK) return rc;
    out->assign(static_cast<std::size_t>(size), 0);
    if (size == 0) return SQLITE_OK;
    return real->pMethods->xRead(real, out->data(), static_cast<int>(size), 0);
}

// ---- io methods -----------------------------------------------------------

int file_close(sqlite3_file* file) {
    PowercutFile* self = wrapper(file);
    int rc = SQLITE_OK;
    {
        std::lock_guard<std::mutex> lock(self->owner->mutex);
        sqlite3_file* real = real_file(file);
        if (real->pMethods != nullptr) rc = real->pMethods->xClose(real);
        if (self->owner->off) rc = SQLITE_OK;  // closing a dead machine's file is fine
    }
    self->~PowercutFile();  // invariant 2: pending operations stay pending
    return rc;
}

int file_read(sqlite3_file* file, void* buffer, int amount, sqlite3_int64 offset) {
    std::lock_guard<std::mutex> lock(wrapper(file)->owner->mutex);
    if (wrapper(file)->owner->off) return SQLITE_IOERR_READ;
    return real_methods(file).xRead(real_file(file), buffer, amount, offset);
}

int file_write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
    PowercutFile* self = wrapper(file);
    Impl& impl = *self->owner;
    try {
        std::lock_guard<std::mutex> lock(impl.mutex);
        if (impl.off) return SQLITE_IOERR_WRITE;
        const bool fires = impl.write_fires(self->kind, self->path);
        // Recorded before the real write so that a failed allocation leaves
        // the real file untouched (invariant 1).
        if (self->pending) {
            self->pending->record_write(offset, data, static_cast<std::size_t>(amount));
        }
        if (fires) {
            // The write was in flight when the power went: it is pending, so
            // the cut may keep, drop or tear it.
            impl.cut(impl.armed_policy, "during write " + std::to_string(impl.writes_since_arm) +
                                            " since arming (" + self->path + ")");
            return SQLITE_IOERR_WRITE;
        }
        FileCounters& counters = counters_of(impl, self->kind);
        ++counters.writes;
        counters.bytes_written += static_cast<std::uint64_t>(amount);
        return real_methods(file).xWrite(real_file(file), data, amount, offset);
    } catch (...) {
        return SQLITE_IOERR_NOMEM;
    }
}

int file_truncate(sqlite3_file* file, sqlite3_int64 size) {
    PowercutFile* self = wrapper(file);
    Impl& impl = *self->owner;
    try {
        std::lock_guard<std::mutex> lock(impl.mutex);
        if (impl.off) return SQLITE_IOERR_TRUNCATE;
        if (self->pending) self->pending->record_truncate(size);
        ++counters_of(impl, self->kind).truncates;
        return real_methods(file).xTruncate(real_file(file), size);
    } catch (...) {
        return SQLITE_IOERR_NOMEM;
    }
}

int file_sync_now(sqlite3_file* file, int flags) {
    PowercutFile* self = wrapper(file);
    Impl& impl = *self->owner;
    try {
        std::lock_guard<std::mutex> lock(impl.mutex);
        if (impl.off) return SQLITE_IOERR_FSYNC;
        if (impl.sync_fires(CutTrigger::Kind::kBeforeSync)) {
            impl.cut(impl.armed_policy, "before sync " + std::to_string(impl.syncs_since_arm) +
                                            " since arming (" + self->path + ")");
            return SQLITE_IOERR_FSYNC;
        }
        ++counters_of(impl, self->kind).syncs;
        if (impl.options.forward_syncs) {
            const int rc = real_methods(file).xSync(real_file(file), flags);
            if (rc != SQLITE_OK) return rc;
        }
        if (self->pending) self->pending->make_durable();  // invariant 2
        if (impl.armed && impl.trigger.kind == CutTrigger::Kind::kAfterSync &&
            impl.syncs_since_arm == impl.trigger.n) {
            // The sync completed; the power goes before anything else runs.
            impl.cut(impl.armed_policy, "after sync " + std::to_string(impl.syncs_since_arm) +
                                            " since arming (" + self->path + ")");
        }
        return SQLITE_OK;
    } catch (...) {
        return SQLITE_IOERR_NOMEM;
    }
}

int file_sync(sqlite3_file* file, int flags) {
    const int rc = file_sync_now(file, flags);
    // The slow disk's extra time, without the lock: other files go on.
    const auto delay = wrapper(file)->owner->options.sync_delay;
    if (rc == SQLITE_OK && delay.count() > 0) std::this_thread::sleep_for(delay);
    return rc;
}

int file_size(sqlite3_file* file, sqlite3_int64* size) {
    std::lock_guard<std::mutex> lock(wrapper(file)->owner->mutex);
    if (wrapper(file)->owner->off) return SQLITE_IOERR_FSTAT;
    return real_methods(file).xFileSize(real_file(file), size);
}

int file_lock(sqlite3_file* file, int level) {
    std::lock_guard<std::mutex> lock(wrapper(file)->owner->mutex);
    if (wrapper(file)->owner->off) return SQLITE_IOERR_LOCK;
    return real_methods(file).xLock(real_file(file), level);
}

int file_unlock(sqlite3_file* file, int level) {
    // Passes through even when off: releasing a lock does no I/O (invariant 5).
    std::lock_guard<std::mutex> lock(wrapper(file)->owner->mutex);
    return real_methods(file).xUnlock(real_file(file), level);
}

int file_check_reserved_lock(sqlite3_file* file, int* result) {
    std::lock_guard<std::mutex> lock(wrapper(file)->owner->mutex);
    if (wrapper(file)->owner->off) return SQLITE_IOERR_CHECKRESERVEDLOCK;
    return real_methods(file).xCheckReservedLock(real_file(file), result);
}

int file_control(sqlite3_file* file, int op, void* arg) {
    switch (op) {
        case SQLITE_FCNTL_SIZE_HINT:
        case SQLITE_FCNTL_CHUNK_SIZE:
            // The unix VFS would grow the file with writes of its own that this
            // layer never sees (invariant 1). Both are only hints.
            return SQLITE_OK;
        case SQLITE_FCNTL_MMAP_SIZE:
            // No memory map may bypass this layer (invariant 3).
            *static_cast<sqlite3_int64*>(arg) = 0;
            return SQLITE_OK;
        default:
            break;
    }
    std::lock_guard<std::mutex> lock(wrapper(file)->owner->mutex);
    return real_methods(file).xFileControl(real_file(file), op, arg);
}

int file_sector_size(sqlite3_file* file) {
    return static_cast<int>(wrapper(file)->owner->options.device.sector_size);  // invariant 4
}

int file_device_characteristics(sqlite3_file* file) {
    // Invariant 4: promise exactly the simulated device, nothing the unix VFS
    // would claim beyond it.
    return wrapper(file)->owner->options.device.powersafe_overwrite
               ? SQLITE_IOCAP_POWERSAFE_OVERWRITE
               : 0;
}

int file_shm_map(sqlite3_file* file, int region, int size, int extend, void volatile** out) {
    std::lock_guard<std::mutex> lock(wrapper(file)->owner->mutex);
    if (wrapper(file)->owner->off) return SQLITE_IOERR_SHMMAP;
    if (real_methods(file).iVersion < 2) return SQLITE_IOERR_SHMMAP;
    return real_methods(file).xShmMap(real_file(file), region, size, extend, out);
}

int file_shm_lock(sqlite3_file* file, int offset, int count, int flags) {
    std::lock_guard<std::mutex> lock(wrapper(file)->owner->mutex);
    if (wrapper(file)->owner->off && (flags & SQLITE_SHM_LOCK) != 0) return SQLITE_IOERR_SHMLOCK;
    if (real_methods(file).iVersion < 2) return SQLITE_IOERR_SHMLOCK;
    return real_methods(file).xShmLock(real_file(file), offset, count, flags);
}

void file_shm_barrier(sqlite3_file* file) {
    if (real_methods(file).iVersion >= 2) real_methods(file).xShmBarrier(real_file(file));
}

int file_shm_unmap(sqlite3_file* file, int delete_flag) {
    std::lock_guard<std::mutex> lock(wrapper(file)->owner->mutex);
    if (real_methods(file).iVersion < 2) return SQLITE_OK;
    return real_methods(file).xShmUnmap(real_file(file), delete_flag);
}

// Version 2: shared memory, but no xFetch/xUnfetch (invariant 3).
const sqlite3_io_methods kPowercutIoMethods = {
    2,
    file_close,
    file_read,
    file_write,
    file_truncate,
    file_sync,
    file_size,
    file_lock,
    file_unlock,
    file_check_reserved_lock,
    file_control,
    file_sector_size,
    file_device_characteristics,
    file_shm_map,
    file_shm_lock,
    file_shm_barrier,
    file_shm_unmap,
    nullptr,
    nullptr,
};

// ---- vfs methods ----------------------------------------------------------

int vfs_open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags, int* out_flags) {
    Impl& impl = owner_of(vfs);
    file->pMethods = nullptr;
    PowercutFile* self = nullptr;
    try {
        std::lock_guard<std::mutex> lock(impl.mutex);
        if (impl.off) return SQLITE_IOERR;
        self = new (file) PowercutFile{{nullptr},
                                       &impl,
                                       kind_from_flags(flags),
                                       name != nullptr ? std::string(name) : std::string(),
                                       nullptr};
        sqlite3_file* real = real_file(file);
        int rc = impl.real->xOpen(impl.real, name, real, flags, out_flags);
        if (rc != SQLITE_OK) {
            self->~PowercutFile();
            return rc;
        }
        const bool durable_kind = self->kind == FileKind::kMainDb || self->kind == FileKind::kWal ||
                                  self->kind == FileKind::kJournal ||
                                  (flags & SQLITE_OPEN_SUPER_JOURNAL) != 0;
        if (impl.options.simulate_cuts && durable_kind && !self->path.empty()) {
            auto found = impl.files.find(self->path);
            if (found == impl.files.end()) {
                Bytes durable;
                rc = read_whole(real, &durable);
                if (rc != SQLITE_OK) {
                    real->pMethods->xClose(real);
                    self->~PowercutFile();
                    return rc;
                }
                found = impl.files
                            .emplace(self->path, std::make_shared<PendingFile>(std::move(durable)))
                            .first;
            }
            self->pending = found->second;
        }
        file->pMethods = &kPowercutIoMethods;
        return SQLITE_OK;
    } catch (...) {
        if (self != nullptr) {
            sqlite3_file* real = real_file(file);
            if (real->pMethods != nullptr) real->pMethods->xClose(real);
            self->~PowercutFile();
        }
        file->pMethods = nullptr;
        return SQLITE_IOERR_NOMEM;
    }
}

int vfs_delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
    Impl& impl = owner_of(vfs);
    try {
        std::lock_guard<std::mutex> lock(impl.mutex);
        if (impl.off) return SQLITE_IOERR_DELETE;
        const int rc = impl.real->xDelete(impl.real, name, sync_dir);
        if (rc == SQLITE_OK || rc == SQLITE_IOERR_DELETE_NOENT) impl.files.erase(name);
        return rc;
    } catch (...) {
        return SQLITE_IOERR_NOMEM;
    }
}

int vfs_access(sqlite3_vfs* vfs, const char* name, int flags, int* result) {
    Impl& impl = owner_of(vfs);
    std::lock_guard<std::mutex> lock(impl.mutex);
    if (impl.off) return SQLITE_IOERR_ACCESS;
    return impl.real->xAccess(impl.real, name, flags, result);
}

int vfs_full_pathname(sqlite3_vfs* vfs, const char* name, int size, char* out) {
    sqlite3_vfs* real = owner_of(vfs).real;
    return real->xFullPathname(real, name, size, out);
}

void* vfs_dl_open(sqlite3_vfs* vfs, const char* name) {
    sqlite3_vfs* real = owner_of(vfs).real;
    return real->xDlOpen(real, name);
}

void vfs_dl_error(sqlite3_vfs* vfs, int size, char* out) {
    sqlite3_vfs* real = owner_of(vfs).real;
    real->xDlError(real, size, out);
}

void (*vfs_dl_sym(sqlite3_vfs* vfs, void* handle, const char* symbol))(void) {
    sqlite3_vfs* real = owner_of(vfs).real;
    return real->xDlSym(real, handle, symbol);
}

void vfs_dl_close(sqlite3_vfs* vfs, void* handle) {
    sqlite3_vfs* real = owner_of(vfs).real;
    real->xDlClose(real, handle);
}

int vfs_randomness(sqlite3_vfs* vfs, int size, char* out) {
    sqlite3_vfs* real = owner_of(vfs).real;
    return real->xRandomness(real, size, out);
}

int vfs_sleep(sqlite3_vfs* vfs, int microseconds) {
    sqlite3_vfs* real = owner_of(vfs).real;
    return real->xSleep(real, microseconds);
}

int vfs_current_time(sqlite3_vfs* vfs, double* out) {
    sqlite3_vfs* real = owner_of(vfs).real;
    return real->xCurrentTime(real, out);
}

int vfs_get_last_error(sqlite3_vfs* vfs, int size, char* out) {
    sqlite3_vfs* real = owner_of(vfs).real;
    return real->xGetLastError != nullptr ? real->xGetLastError(real, size, out) : 0;
}

int vfs_current_time_int64(sqlite3_vfs* vfs, sqlite3_int64* out) {
    sqlite3_vfs* real = owner_of(vfs).real;
    if (real->iVersion >= 2 && real->xCurrentTimeInt64 != nullptr) {
        return real->xCurrentTimeInt64(real, out);
    }
    double days = 0;
    const int rc = real->xCurrentTime(real, &days);
    *out = static_cast<sqlite3_int64>(days * 86400000.0);
    return rc;
}

}  // namespace

void install_powercut_callbacks(sqlite3_vfs& vfs, const sqlite3_vfs& real) {
    vfs.iVersion = 2;  // up to xCurrentTimeInt64; no system-call overrides
    vfs.szOsFile = static_cast<int>(kRealOffset) + real.szOsFile;
    vfs.mxPathname = real.mxPathname;
    vfs.pNext = nullptr;
    vfs.xOpen = vfs_open;
    vfs.xDelete = vfs_delete;
    vfs.xAccess = vfs_access;
    vfs.xFullPathname = vfs_full_pathname;
    vfs.xDlOpen = vfs_dl_open;
    vfs.xDlError = vfs_dl_error;
    vfs.xDlSym = vfs_dl_sym;
    vfs.xDlClose = vfs_dl_close;
    vfs.xRandomness = vfs_randomness;
    vfs.xSleep = vfs_sleep;
    vfs.xCurrentTime = vfs_current_time;
    vfs.xGetLastError = vfs_get_last_error;
    vfs.xCurrentTimeInt64 = vfs_current_time_int64;
}

}  // namespace outpost::testing
