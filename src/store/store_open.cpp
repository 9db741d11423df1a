// Opening a store: files, pragmas, migrations, integrity, corruption policy.
//
// Order of operations at open, and the failure each step prevents:
//  1. Read user_version before anything writes: a database from a newer
//     Outpost is refused untouched (no silent downgrade, no WAL switch).
//  1b. Page size: 1 KiB for every store (set_page_size: a new file before
//     its first write; an older store rewritten once).
//  2. journal_mode=WAL, synchronous=FULL: every COMMIT that returns OK has
//     had its WAL frames fsynced (survives a power cut); the writer lowers it
//     to NORMAL only for batches of lazy writes (write_batch.cpp, I8).
//  3. Migrations, each in its own durable transaction. Then, once per boot,
//     the previous boot's last known uptime goes to boot_log (the backlog age
//     across reboots), and the outbox figures, device seqs and id generator
//     come from the summary and its short tail (outbox_summary.h): open
//     never reads the whole outbox.
//  4. If this open created the file, fsync the directory: the unix VFS does
//     not, and a power cut could otherwise lose the whole new file.
//  5. quick_check (optional): a damaged file is reported, never wiped.
// Before the writer's first open, a missing database file is created by us,
// mode 0640 whatever the umask, and never through a symbolic link; every
// connection opens it with SQLITE_OPEN_NOFOLLOW (sqlite_db.cpp). SQLite
// gives the -wal and -shm files the database file's mode.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/text_checks.h"
#include "store/migrations.h"
#include "store/outbox_summary.h"
#include "store/store_core.h"

namespace outpost::store {
namespace {

bool file_exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

std::string parent_directory(const std::string& path) {
    size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

Status fsync_directory(const std::string& dir) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return Status::error(StatusCode::kIoError,
                             "opening directory " + dir + " to sync it: " + std::strerror(errno));
    }
    int rc = ::fsync(fd);
    int saved = errno;
    ::close(fd);
    if (rc != 0) {
        return Status::error(StatusCode::kIoError,
                             "fsync of directory " + dir + ": " + std::strerror(saved));
    }
    return Status::ok();
}

// Renames the database and its WAL to "<path>.corrupt-N[-wal]" with the
// first N free for both names. The -shm file holds no data and is removed.
// Both move or neither does: a WAL left behind would be replayed into the
// fresh database at its first open.
Result<std::string> move_aside(const std::string& path) {
    const std::string wal = path + "-wal";
    for (int n = 1; n < 1000; ++n) {
        std::string target = path + ".corrupt-" + std::to_string(n);
        // An earlier copy's leftover -wal is evidence too: never overwrite it.
        if (file_exists(target) || file_exists(target + "-wal")) continue;
        if (::rename(path.c_str(), target.c_str()) != 0) {
            return Status::error(StatusCode::kIoError, "moving corrupt database " + path +
                                                           " aside: " + std::strerror(errno));
        }
        if (file_exists(wal) && ::rename(wal.c_str(), (target + "-wal").c_str()) != 0) {
            std::string message =
                "moving the WAL of corrupt database " + path + " aside: " + std::strerror(errno);
            if (::rename(target.c_str(), path.c_str()) != 0) {
                message += "; putting the database back failed too (" +
                           std::string(std::strerror(errno)) + "): it is at " + target +
                           ", its WAL still at " + wal;
            } else {
                message += "; nothing was moved";
            }
            return Status::error(StatusCode::kIoError, message);
        }
        // A stale -shm left by a failed unlink is harmless: SQLite
        // reinitialises it when the fresh database first opens its WAL.
        static_cast<void>(::unlink((path + "-shm").c_str()));
        Status synced = fsync_directory(parent_directory(path));
        if (!synced) return synced;
        return target;
    }
    return Status::error(StatusCode::kIoError, "too many corrupt copies beside " + path);
}

}  // namespace

StoreCore::StoreCore(std::string path, const StoreOptions& options)
    : path_(std::move(path)),
      options_(options),
      clock_(options.clock ? options.clock : &system_clock()),
      boot_id_(clock_->boot_id()),
      commit_wait_(options.commit_wait) {}

StoreCore::~StoreCore() {
    close().ignore_error("a destructor has no one to tell; Store::close() reports the outcome");
}

Result<Db> StoreCore::open_reader(Db::Role role) const {
    auto db = Db::open(path_, SQLITE_OPEN_READONLY, options_.vfs_name, role);
    if (!db) return db.status();
    sqlite3_busy_timeout(db->handle(), static_cast<int>(options_.busy_timeout.count()));
    return db;
}

Status StoreCore::open_writer() {
    db_.close();
    Status status = configure_writer();
    if (!status) {
        // A half-configured writer (no WAL hook, no page limit, sequence
        // numbers half loaded) must never run a batch: closed, it is reopened
        // from scratch by the next one.
        db_.close();
    }
    return status;
}

namespace {

// Creates `path` empty with mode 0640 if nothing is there. A file already
// there is left alone (SQLite reads it); a symbolic link there, dangling or
// not, is left alone too and SQLite's NOFOLLOW open refuses it.
Status create_database_file(const std::string& path) {
    const int fd =
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd < 0) {
        if (errno == EEXIST) return Status::ok();
        return Status::error(StatusCode::kIoError,
                             "creating database " + path + ": " + std::strerror(errno));
    }
    // open() applied the umask; the mode is the one we chose.
    const int changed = ::fchmod(fd, 0640);
    const int error = errno;
    ::close(fd);
    if (changed != 0) {
        return Status::error(StatusCode::kIoError,
                             "setting mode 0640 on " + path + ": " + std::strerror(error));
    }
    return Status::ok();
}

// The page size of every store (step 1b). A WAL frame is a page plus 24
// bytes, and at a gateway's pace most commits write two or three pages (an
// alarm's two leaves; a SENT mark's outbox leaf, summary and device_seq), so
// the page size is what each of them costs the card. 1 KiB pages cut the
// bytes each alarm writes to about a quarter of SQLite's default 4 KiB; the
// price is a deeper B-tree (a few more page reads, all in the cache) and an
// envelope over about 1 KiB spilling to overflow pages
// (docs/performance.md, "Flash bytes on an emulated gateway").
constexpr int64_t kPageSize = 1024;

}  // namespace

// Step 1b. A new, empty file gets kPageSize before anything is written. A
// file with another page size (made by an older Outpost) is rewritten once
// with it: journal_mode=DELETE, then VACUUM, which SQLite makes atomic
// through its rollback journal (a cut leaves the old file whole and the next
// open converts again). It needs the store's size in free space and sole
// use of the file: while another connection has it open, or when the
// rewrite fails, the store keeps its page size and works as before; the
// next open tries again.
Status StoreCore::set_page_size() {
    auto size = db_.query_int("PRAGMA page_size", "reading the page size");
    if (!size) return size.status();
    if (*size == kPageSize) return Status::ok();
    auto pages = db_.query_int("PRAGMA page_count", "reading the page count");
    if (!pages) return pages.status();
    const std::string pragma = "PRAGMA page_size=" + std::to_string(kPageSize);
    if (*pages == 0) return db_.exec(pragma, "setting the page size of a new store");
    // Without waiting: another connection (an outpostctl) is no reason to
    // delay the open, only to convert at a later one.
    sqlite3_busy_timeout(db_.handle(), 0);
    auto mode = db_.query_text("PRAGMA journal_mode=DELETE", "leaving WAL to resize pages");
    sqlite3_busy_timeout(db_.handle(), static_cast<int>(options_.busy_timeout.count()));
    if (!mode && mode.status().code() == StatusCode::kBusy) return Status::ok();
    if (!mode) return mode.status();
    if (*mode != "delete") return Status::ok();  // another connection: next open
    Status status = db_.exec("PRAGMA synchronous=FULL", "setting synchronous=FULL");
    if (status) status = db_.exec(pragma, "setting the page size");
    if (status && !db_.exec("VACUUM", "rewriting " + path_ + " with the new page size")) {
        return Status::ok();  // unchanged (disk full, I/O error): next open
    }
    return status;
}

Status StoreCore::configure_writer() {
    if (Status created = create_database_file(path_); !created) return created;
    auto db = Db::open(path_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, options_.vfs_name);
    if (!db) return db.status();
    db_ = std::move(*db);
    sqlite3_busy_timeout(db_.handle(), static_cast<int>(options_.busy_timeout.count()));

    auto version = check_schema_version(db_);  // step 1: before anything writes
    if (!version) return version.status();
    report_.from_version = report_.from_version ? report_.from_version : *version;
    Status sized = set_page_size();  // step 1b
    if (!sized) return sized;

    auto mode = db_.query_text("PRAGMA journal_mode=WAL", "switching to WAL");
    if (!mode) return mode.status();
    if (*mode != "wal") {
        return Status::error(StatusCode::kIoError,
                             path_ + ": cannot use WAL mode (got '" + *mode +
                                 "'); the file system must support shared memory and locks");
    }
    // Durability: fsync the WAL at every COMMIT (see store_options.h), except
    // for batches of lazy writes only (write_batch.cpp, I8).
    Status status = db_.exec("PRAGMA synchronous=FULL", "setting synchronous=FULL");
    synchronous_full_ = true;
    wal_sized_ = false;
    // Debian builds SQLite with SECURE_DELETE on: zeroing freed content costs
    // flash writes and protects nothing on a gateway.
    if (status) status = db_.exec("PRAGMA secure_delete=OFF", "setting secure_delete");
    // Cap the WAL file left behind after a large transaction (flash space).
    if (status) status = db_.exec("PRAGMA journal_size_limit=4194304", "setting WAL limit");
    if (status) status = db_.exec("PRAGMA foreign_keys=OFF", "setting foreign_keys");
    if (!status) return status;
    if (*version < latest_schema_version()) {
        status = apply_migrations(db_, *version);
        if (!status) return status;
    }
    report_.to_version = latest_schema_version();

    auto page_size = db_.query_int("PRAGMA page_size", "reading page size");
    if (!page_size) return page_size.status();
    page_size_ = *page_size;
    // The quota's hard backstop: SQLite itself refuses to grow past it. The
    // headroom lets purges and SENT marks run when the quota is reached.
    int64_t max_pages = static_cast<int64_t>(options_.quota_bytes / page_size_) +
                        std::max<int64_t>(256, static_cast<int64_t>(options_.quota_bytes / page_size_ / 8));
    status = db_.exec("PRAGMA max_page_count=" + std::to_string(max_pages), "setting page limit");
    if (!status) return status;

    // We run checkpoints ourselves from the WAL hook (this replaces SQLite's
    // auto-checkpoint), so that the bytes they write are counted.
    sqlite3_wal_hook(db_.handle(), &StoreCore::on_wal_commit, this);
    wal_frames_seen_ = 0;
    used_bytes_bound_ = -1;  // Q1: a reopen may follow an outcome we did not see

    auto data_version = db_.query_int("PRAGMA data_version", "reading data_version");
    if (!data_version) return data_version.status();
    data_version_ = *data_version;
    // Once per boot: the previous boot's last known uptime goes to boot_log.
    status = note_boot(db_, boot_id_, clock_->boot_ms());
    if (!status) return status;
    last_seq_.clear();
    unsaved_seq_.clear();
    high_water_id_ = 0;
    // One read snapshot, so the summary and its tail agree (S2).
    status = db_.exec("BEGIN", "reading the outbox summary");
    if (status) status = load_outbox_state();
    Status ended = db_.exec(status ? "COMMIT" : "ROLLBACK", "ending the summary read");
    return status ? ended : status;
}

Result<bool> StoreCore::checked_this_boot() {
    if (!options_.check_once_per_boot) return false;
    auto boot = db_.query_text(
        "SELECT coalesce((SELECT value FROM meta WHERE key='integrity_checked_boot'), '')",
        "reading the last integrity check's boot");
    if (!boot) return boot.status();
    return *boot == boot_id_;
}

Status StoreCore::check_integrity() {
    report_.integrity_checked = true;
    auto check = db_.query_text("PRAGMA quick_check", "checking integrity");
    if (!check) {
        if (check.status().code() != StatusCode::kCorruption) return check.status();
        report_.corruption_detail = check.status().message();
        return Status::ok();
    }
    if (*check != "ok") {
        report_.corruption_detail = "quick_check: " + *check;
        return Status::ok();
    }
    if (!options_.check_once_per_boot) return Status::ok();
    // Only a clean result is remembered: a damaged file is checked again.
    auto mark = Stmt::prepare(
        db_, "INSERT OR REPLACE INTO meta (key, value) VALUES ('integrity_checked_boot', ?1)");
    if (!mark) return mark.status();
    return mark->bind(1, boot_id_).run("remembering this boot's integrity check");
}

Result<std::unique_ptr<StoreCore>> StoreCore::open(const std::string& path,
                                                   const StoreOptions& options) {
    if (path.empty()) return Status::error(StatusCode::kInvalidArgument, "store path is empty");
    if (options.quota_bytes < StoreOptions::kMinQuotaBytes) {
        return Status::error(StatusCode::kInvalidArgument,
                             "quota_bytes must be at least " +
                                 std::to_string(StoreOptions::kMinQuotaBytes) + " (" +
                                 std::to_string(StoreOptions::kMinQuotaBytes / 1024) + " KiB)");
    }
    if (options.max_batch == 0 || options.purge_batch_rows == 0) {
        return Status::error(StatusCode::kInvalidArgument,
                             "max_batch and purge_batch_rows must be positive");
    }
    std::unique_ptr<StoreCore> core(new StoreCore(path, options));
    const bool existed = file_exists(path);
    core->report_.created = !existed;

    Status status = core->open_writer();
    if (status.code() == StatusCode::kCorruption && existed) {
        core->report_.corruption_detail = status.message();
    } else if (!status) {
        return status.with_context("opening store " + path);
    }

    if (status && options.check_on_open) {
        auto checked = core->checked_this_boot();
        if (!checked) return checked.status();
        if (!*checked) {
            status = core->check_integrity();
            if (!status) return status;
        }
    }

    if (!core->report_.corruption_detail.empty()) {
        std::string detail = core->report_.corruption_detail;
        core->db_.close();
        if (options.corruption_policy == CorruptionPolicy::kRefuse) {
            return Status::error(StatusCode::kCorruption,
                                 path + " is damaged (" + detail +
                                     "); it was left untouched. Move it aside to start a new "
                                     "store, or open with CorruptionPolicy::kMoveAside");
        }
        auto moved = move_aside(path);
        if (!moved) return moved.status();
        core->report_ = OpenReport{};
        core->report_.created = true;
        core->report_.moved_aside_path = *moved;
        core->report_.corruption_detail = detail;
        status = core->open_writer();
        if (!status) return status.with_context("creating a fresh store at " + path);
    }

    if (core->report_.created) {
        // Step 4: make the new directory entry durable.
        status = fsync_directory(parent_directory(path));
        if (!status) return status;
    }

    // The database belongs to one gateway: a config mix-up must not publish
    // one gateway's backlog under another's identity.
    auto owner = Stmt::prepare(core->db_, "SELECT value FROM meta WHERE key='gateway_id'");
    if (!owner) return owner.status();
    auto step = owner->step("reading gateway id");
    if (!step) return step.status();
    if (*step == Stmt::Step::kRow) {
        std::string stored = owner->column_text(0);
        if (!options.gateway_id.empty() && stored != options.gateway_id) {
            return Status::error(StatusCode::kInvalidArgument,
                                 path + " belongs to gateway '" + stored + "', not '" +
                                     options.gateway_id + "'");
        }
        core->gateway_id_ = stored;
        return core;
    }
    if (!is_valid_identifier(options.gateway_id)) {
        return Status::error(StatusCode::kInvalidArgument,
                             "gateway_id '" + options.gateway_id +
                                 "' must match [A-Za-z0-9._-]{1,64} to create store " + path);
    }
    auto claim = Stmt::prepare(core->db_, "INSERT INTO meta (key, value) VALUES ('gateway_id', ?1)");
    if (!claim) return claim.status();
    claim->bind(1, options.gateway_id);
    status = claim->run("recording the gateway id");  // autocommit, durable
    if (!status) return status;
    core->gateway_id_ = options.gateway_id;
    return core;
}

}  // namespace outpost::store
