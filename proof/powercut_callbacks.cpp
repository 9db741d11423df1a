// The hooks of the power-cut VFS: what it does to the calls SQLite makes
// through the shim layer (shim_vfs.h), which forwards every other call to the
// real file. The design note and the numbered invariants are in
// powercut_vfs.cpp.
//
// Every hook that can allocate catches everything: no exception may unwind
// through SQLite.
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

PowercutFile& wrapper(ShimFile& file) {
    return static_cast<PowercutFile&>(file);
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

}  // namespace

// ---- io methods -----------------------------------------------------------

int Impl::close(ShimFile& file) {
    int rc = SQLITE_OK;
    {
        std::lock_guard<std::mutex> lock(mutex);
        sqlite3_file* real = file.below();
        if (real->pMethods != nullptr) rc = real->pMethods->xClose(real);
        if (off) rc = SQLITE_OK;  // closing a dead machine's file is fine
    }
    wrapper(file).~PowercutFile();  // invariant 2: pending operations stay pending
    return rc;
}

int Impl::read(ShimFile& file, void* buffer, int amount, sqlite3_int64 offset) {
    std::lock_guard<std::mutex> lock(mutex);
    if (off) return SQLITE_IOERR_READ;
    return ShimVfs::read(file, buffer, amount, offset);
}

int Impl::write(ShimFile& file, const void* data, int amount, sqlite3_int64 offset) {
    PowercutFile& self = wrapper(file);
    try {
        std::lock_guard<std::mutex> lock(mutex);
        if (off) return SQLITE_IOERR_WRITE;
        const bool fires = write_fires(self.kind, self.path);
        // Recorded before the real write so that a failed allocation leaves
        // the real file untouched (invariant 1).
        if (self.pending) {
            self.pending->record_write(offset, data, static_cast<std::size_t>(amount));
        }
        if (fires) {
            // The write was in flight when the power went: it is pending, so
            // the cut may keep, drop or tear it.
            cut(armed_policy, "during write " + std::to_string(writes_since_arm) +
                                  " since arming (" + self.path + ")");
            return SQLITE_IOERR_WRITE;
        }
        FileCounters& file_counters = counters_of(*this, self.kind);
        ++file_counters.writes;
        file_counters.bytes_written += static_cast<std::uint64_t>(amount);
        return ShimVfs::write(file, data, amount, offset);
    } catch (...) {
        return SQLITE_IOERR_NOMEM;
    }
}

int Impl::truncate(ShimFile& file, sqlite3_int64 size) {
    PowercutFile& self = wrapper(file);
    try {
        std::lock_guard<std::mutex> lock(mutex);
        if (off) return SQLITE_IOERR_TRUNCATE;
        if (self.pending) self.pending->record_truncate(size);
        ++counters_of(*this, self.kind).truncates;
        return ShimVfs::truncate(file, size);
    } catch (...) {
        return SQLITE_IOERR_NOMEM;
    }
}

int Impl::sync_locked(PowercutFile& file, int flags) {
    try {
        std::lock_guard<std::mutex> lock(mutex);
        if (off) return SQLITE_IOERR_FSYNC;
        if (sync_fires(CutTrigger::Kind::kBeforeSync)) {
            cut(armed_policy, "before sync " + std::to_string(syncs_since_arm) + " since arming (" +
                                  file.path + ")");
            return SQLITE_IOERR_FSYNC;
        }
        ++counters_of(*this, file.kind).syncs;
        if (options.forward_syncs) {
            const int rc = ShimVfs::sync(file, flags);
            if (rc != SQLITE_OK) return rc;
        }
        if (file.pending) file.pending->make_durable();  // invariant 2
        if (armed && trigger.kind == CutTrigger::Kind::kAfterSync && syncs_since_arm == trigger.n) {
            // The sync completed; the power goes before anything else runs.
            cut(armed_policy, "after sync " + std::to_string(syncs_since_arm) + " since arming (" +
                                  file.path + ")");
        }
        return SQLITE_OK;
    } catch (...) {
        return SQLITE_IOERR_NOMEM;
    }
}

int Impl::sync(ShimFile& file, int flags) {
    const int rc = sync_locked(wrapper(file), flags);
    // The slow disk's extra time, without the lock: other files go on.
    if (rc == SQLITE_OK && options.sync_delay.count() > 0) {
        std::this_thread::sleep_for(options.sync_delay);
    }
    return rc;
}

int Impl::file_size(ShimFile& file, sqlite3_int64* size) {
    std::lock_guard<std::mutex> lock(mutex);
    if (off) return SQLITE_IOERR_FSTAT;
    return ShimVfs::file_size(file, size);
}

int Impl::lock(ShimFile& file, int level) {
    std::lock_guard<std::mutex> guard(mutex);
    if (off) return SQLITE_IOERR_LOCK;
    return ShimVfs::lock(file, level);
}

int Impl::unlock(ShimFile& file, int level) {
    // Passes through even when off: releasing a lock does no I/O (invariant 5).
    std::lock_guard<std::mutex> lock(mutex);
    return ShimVfs::unlock(file, level);
}

int Impl::check_reserved_lock(ShimFile& file, int* result) {
    std::lock_guard<std::mutex> lock(mutex);
    if (off) return SQLITE_IOERR_CHECKRESERVEDLOCK;
    return ShimVfs::check_reserved_lock(file, result);
}

int Impl::file_control(ShimFile& file, int op, void* arg) {
    // SQLITE_FCNTL_MMAP_SIZE never gets here: the shim layer answers it 0,
    // so no memory map bypasses this layer (invariant 3).
    if (op == SQLITE_FCNTL_SIZE_HINT || op == SQLITE_FCNTL_CHUNK_SIZE) {
        // The unix VFS would grow the file with writes of its own that this
        // layer never sees (invariant 1). Both are only hints.
        return SQLITE_OK;
    }
    std::lock_guard<std::mutex> lock(mutex);
    return ShimVfs::file_control(file, op, arg);
}

int Impl::sector_size(ShimFile&) {
    return static_cast<int>(options.device.sector_size);  // invariant 4
}

int Impl::device_characteristics(ShimFile&) {
    // Invariant 4: promise exactly the simulated device, nothing the unix VFS
    // would claim beyond it.
    return options.device.powersafe_overwrite ? SQLITE_IOCAP_POWERSAFE_OVERWRITE : 0;
}

int Impl::shm_map(ShimFile& file, int region, int size, int extend, void volatile** out) {
    std::lock_guard<std::mutex> lock(mutex);
    if (off) return SQLITE_IOERR_SHMMAP;
    return ShimVfs::shm_map(file, region, size, extend, out);
}

int Impl::shm_lock(ShimFile& file, int offset, int count, int flags) {
    std::lock_guard<std::mutex> lock(mutex);
    if (off && (flags & SQLITE_SHM_LOCK) != 0) return SQLITE_IOERR_SHMLOCK;
    return ShimVfs::shm_lock(file, offset, count, flags);
}

int Impl::shm_unmap(ShimFile& file, int delete_flag) {
    std::lock_guard<std::mutex> lock(mutex);
    return ShimVfs::shm_unmap(file, delete_flag);
}

// ---- vfs methods ----------------------------------------------------------

int Impl::open(const char* name, sqlite3_file* file, int flags, int* out_flags) {
    PowercutFile* self = nullptr;
    try {
        std::lock_guard<std::mutex> lock(mutex);
        if (off) return SQLITE_IOERR;
        self = new (file) PowercutFile{{{nullptr}, this},
                                       kind_from_flags(flags),
                                       name != nullptr ? std::string(name) : std::string(),
                                       nullptr};
        int rc = open_below(name, *self, flags, out_flags);
        if (rc != SQLITE_OK) {
            self->~PowercutFile();
            return rc;
        }
        const bool durable_kind = self->kind == FileKind::kMainDb || self->kind == FileKind::kWal ||
                                  self->kind == FileKind::kJournal ||
                                  (flags & SQLITE_OPEN_SUPER_JOURNAL) != 0;
        if (options.simulate_cuts && durable_kind && !self->path.empty()) {
            auto found = files.find(self->path);
            if (found == files.end()) {
                Bytes durable;
                rc = read_whole(self->below(), &durable);
                if (rc != SQLITE_OK) {
                    self->below_methods().xClose(self->below());
                    self->~PowercutFile();
                    return rc;
                }
                found = files.emplace(self->path, std::make_shared<PendingFile>(std::move(durable)))
                            .first;
            }
            self->pending = found->second;
        }
        return SQLITE_OK;
    } catch (...) {
        if (self != nullptr) {
            sqlite3_file* real = self->below();
            if (real->pMethods != nullptr) real->pMethods->xClose(real);
            self->~PowercutFile();
        }
        return SQLITE_IOERR_NOMEM;
    }
}

int Impl::delete_file(const char* name, int sync_dir) {
    try {
        std::lock_guard<std::mutex> lock(mutex);
        if (off) return SQLITE_IOERR_DELETE;
        const int rc = ShimVfs::delete_file(name, sync_dir);
        if (rc == SQLITE_OK || rc == SQLITE_IOERR_DELETE_NOENT) files.erase(name);
        return rc;
    } catch (...) {
        return SQLITE_IOERR_NOMEM;
    }
}

int Impl::access(const char* name, int flags, int* result) {
    std::lock_guard<std::mutex> lock(mutex);
    if (off) return SQLITE_IOERR_ACCESS;
    return ShimVfs::access(name, flags, result);
}

}  // namespace outpost::testing
