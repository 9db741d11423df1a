// Checkpoints, run from SQLite's WAL hook after each commit of the writer
// (this replaces SQLite's auto-checkpoint, so that the bytes they write are
// counted for the flash-wear figures).
//
// A checkpoint that fails loses nothing: the frames stay in the WAL and a
// later commit checkpoints again. Its failure is counted, and after an I/O
// error the batch leader reopens the writer before the next attempt
// (write_batch.cpp, I5): never the same failed sync again.
#include <algorithm>

#include "common/fault_point.h"
#include "store/store_core.h"

namespace outpost::store {

int StoreCore::on_wal_commit(void* self_ptr, sqlite3* db, const char* name, int frames) noexcept {
    try {
        static_cast<StoreCore*>(self_ptr)->after_wal_commit(db, name, frames);
    } catch (...) {
        // I7: nothing may unwind through SQLite. What is lost is a count or
        // the text of a checkpoint failure; the next commit checkpoints again.
    }
    return SQLITE_OK;
}

void StoreCore::after_wal_commit(sqlite3* db, const char* name, int frames) {
    // A smaller count than last time means the WAL was restarted from the
    // beginning after a complete checkpoint.
    int added = frames >= wal_frames_seen_ ? frames - wal_frames_seen_ : frames;
    wal_frames_seen_ = frames;
    // Q1 (quota.cpp): a commit of `added` frames grew the file by at most
    // that many pages.
    if (used_bytes_bound_ >= 0) used_bytes_bound_ += static_cast<int64_t>(added) * page_size_;
    int log_frames = 0;
    int copied = 0;
    bool failed = false;
    if (frames >= kCheckpointFrames) {
        // PASSIVE never waits for readers. It fsyncs the WAL before copying
        // and the database after, so a cut mid-checkpoint loses nothing.
        OUTPOST_FAULT_POINT("store.before_checkpoint");
        const int rc =
            sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, &log_frames, &copied);
        OUTPOST_FAULT_POINT("store.after_checkpoint");
        if (rc == SQLITE_OK) {
            if (log_frames == copied) wal_frames_seen_ = 0;  // next write restarts the WAL
        } else {
            // The frames stay in the WAL, so nothing is lost; the leader
            // reopens after an I/O error (I5) and a later commit retries.
            failed = true;
            checkpoint_failure_ = sqlite_status(rc, db, "checkpointing " + path_);
        }
    }
    std::lock_guard<std::mutex> lock(stats_mutex_);
    if (failed) counters_.checkpoint_failures++;
    counters_.wal_frames += static_cast<uint64_t>(added);
    counters_.wal_bytes +=
        static_cast<uint64_t>(added) * static_cast<uint64_t>(page_size_ + kWalFrameHeaderBytes);
    counters_.checkpoint_pages += static_cast<uint64_t>(copied > 0 ? copied : 0);
}

void StoreCore::size_wal() noexcept {
    wal_sized_ = true;  // one attempt per writer connection: it only saves writes
    sqlite3_file* wal = nullptr;
    if (sqlite3_file_control(db_.handle(), "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal) !=
            SQLITE_OK ||
        wal == nullptr || wal->pMethods == nullptr) {
        return;
    }
    // I9: the size a WAL reaches before its checkpoint, header included.
    const sqlite3_int64 target =
        kWalHeaderBytes + int64_t{kCheckpointFrames} * (page_size_ + kWalFrameHeaderBytes);
    sqlite3_int64 size = 0;
    if (wal->pMethods->xFileSize(wal, &size) != SQLITE_OK || size >= target) return;
    static const char kZeros[65536] = {};
    while (size < target) {
        const int chunk = static_cast<int>(std::min<sqlite3_int64>(sizeof kZeros, target - size));
        if (wal->pMethods->xWrite(wal, kZeros, chunk, size) != SQLITE_OK) return;
        size += chunk;
    }
}

}  // namespace outpost::store
