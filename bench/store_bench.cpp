// Store benchmark: alarms per second and bytes written per alarm, each next
// to the raw SQLite limit measured in the same run.
//
//   store_bench [--alarms N] [--threads T] [--dir DIR]
//
// Prints one JSON line per scenario:
//   raw_single      a bare SQLite loop: the same two INSERTs per transaction
//                   (an outbox row and an alarm row with the same columns and
//                   values), same pragmas (WAL, synchronous=FULL)
//   store_single    Store::record_alarm from one thread; ratio_to_raw
//   store_parallel  T threads calling record_alarm at once (group commit);
//                   speedup over store_single
// Bytes are counted by a pass-through VFS (no simulation): every byte the
// database and its WAL receive, checkpoints included.
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "outpost/store.h"
#include "proof/powercut_vfs.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kVfsName = "outpost-bench-counting";

struct Figures {
    double seconds = 0;
    long alarms = 0;
    outpost::testing::IoCounters io;
};

std::string event_id_like(long i) {
    char id[64];
    std::snprintf(id, sizeof id, "019a0000-0000-7000-8000-%012ld", i % 1000000000000L);
    return id;
}

void check(int rc, sqlite3* db, const char* what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        std::fprintf(stderr, "store_bench: %s: %s\n", what, sqlite3_errmsg(db));
        std::exit(1);
    }
}

// The raw limit: what SQLite itself does for the same work.
Figures raw_single(const std::string& path, long alarms, outpost::testing::PowercutVfs& vfs) {
    sqlite3* db = nullptr;
    check(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, kVfsName),
          db, "open");
    check(sqlite3_exec(db,
                       "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA secure_delete=OFF;"
                       "CREATE TABLE outbox (id INTEGER PRIMARY KEY, event_id TEXT, device_id TEXT,"
                       " seq INT, event_type TEXT, topic_suffix TEXT, envelope TEXT, state INT DEFAULT 0);"
                       "CREATE TABLE alarm_record (id INTEGER PRIMARY KEY, event_id TEXT, device_id TEXT,"
                       " alarm_type TEXT, event_type TEXT, severity TEXT, value REAL, unit TEXT,"
                       " text TEXT, occurred_at_ms INT, boot_id TEXT, uptime_ms INT);",
                       nullptr, nullptr, nullptr),
          db, "schema");
    sqlite3_stmt* outbox = nullptr;
    sqlite3_stmt* alarm = nullptr;
    check(sqlite3_prepare_v2(db, "INSERT INTO outbox (event_id, device_id, seq, event_type,"
                                 " topic_suffix, envelope) VALUES (?1, 'pump-1', ?2, 'ALARM_RAISED',"
                                 " 'alarm/pump-1', ?3)", -1, &outbox, nullptr), db, "prepare");
    check(sqlite3_prepare_v2(db, "INSERT INTO alarm_record VALUES (?1, ?2, 'pump-1',"
                                 " 'OVER_TEMPERATURE', 'ALARM_RAISED', 'critical', 97.5, 'degC',"
                                 " 'bearing temperature above limit', 1700000000000,"
                                 " '73fa985b-d953-40f8-b83a-0ec27063dc62', 836961)", -1, &alarm,
                             nullptr), db, "prepare");
    vfs.reset_counters();
    auto start = Clock::now();
    for (long i = 0; i < alarms; ++i) {
        const std::string id = event_id_like(i);
        check(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), db, "begin");
        sqlite3_bind_text(outbox, 1, id.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(outbox, 2, i + 1);
        sqlite3_bind_null(outbox, 3);  // the store keeps alarm envelopes unstored too
        check(sqlite3_step(outbox), db, "insert outbox");
        sqlite3_reset(outbox);
        sqlite3_bind_int64(alarm, 1, sqlite3_last_insert_rowid(db));
        sqlite3_bind_text(alarm, 2, id.c_str(), -1, SQLITE_TRANSIENT);
        check(sqlite3_step(alarm), db, "insert alarm");
        sqlite3_reset(alarm);
        check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit");
    }
    Figures figures;
    figures.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    figures.alarms = alarms;
    figures.io = vfs.counters();
    sqlite3_finalize(outbox);
    sqlite3_finalize(alarm);
    sqlite3_close(db);
    return figures;
}

Figures store_run(const std::string& path, long alarms, int threads,
                  outpost::testing::PowercutVfs& vfs) {
    outpost::StoreOptions options;
    options.gateway_id = "gw-bench";
    options.vfs_name = kVfsName;
    options.quota_bytes = 1ull << 30;
    auto store = outpost::Store::open(path, options);
    if (!store) {
        std::fprintf(stderr, "store_bench: %s\n", store.status().to_string().c_str());
        std::exit(1);
    }
    outpost::Alarm alarm;
    alarm.device_id = "pump-1";
    alarm.alarm_type = "OVER_TEMPERATURE";
    alarm.severity = outpost::Severity::kCritical;
    alarm.value = 97.5;
    alarm.unit = "degC";
    alarm.text = "bearing temperature above limit";
    vfs.reset_counters();
    auto start = Clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            outpost::Alarm mine = alarm;
            mine.device_id = "pump-" + std::to_string(t);
            for (long i = t; i < alarms; i += threads) {
                auto result = (*store)->record_alarm(mine);
                if (!result) {
                    std::fprintf(stderr, "store_bench: %s\n", result.status().to_string().c_str());
                    std::exit(1);
                }
            }
        });
    }
    for (auto& worker : workers) worker.join();
    Figures figures;
    figures.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    figures.alarms = alarms;
    figures.io = vfs.counters();
    return figures;
}

void print(const char* scenario, const Figures& f, const std::string& extra) {
    double rate = f.alarms / f.seconds;
    std::printf("{\"scenario\":\"%s\",\"alarms\":%ld,\"seconds\":%.3f,\"alarms_per_s\":%.0f,"
                "\"wal_bytes_per_alarm\":%.0f,\"db_bytes_per_alarm\":%.0f,"
                "\"syncs_per_alarm\":%.3f%s}\n",
                scenario, f.alarms, f.seconds, rate,
                static_cast<double>(f.io.wal.bytes_written) / f.alarms,
                static_cast<double>(f.io.main_db.bytes_written) / f.alarms,
                static_cast<double>(f.io.total_syncs()) / f.alarms, extra.c_str());
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    long alarms = 2000;
    int threads = 8;
    int rounds = 3;
    std::string dir = "/var/tmp";
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--alarms" && i + 1 < argc) {
            alarms = std::atol(argv[++i]);
        } else if (arg == "--threads" && i + 1 < argc) {
            threads = std::atoi(argv[++i]);
        } else if (arg == "--rounds" && i + 1 < argc) {
            rounds = std::atoi(argv[++i]);
        } else if (arg == "--dir" && i + 1 < argc) {
            dir = argv[++i];
        } else {
            std::fprintf(stderr,
                         "usage: store_bench [--alarms N (2000)] [--threads T (8)] [--rounds R (3)]"
                         " [--dir DIR (/var/tmp; use the disk you care about, not tmpfs)]\n"
                         "Each round runs raw, single and parallel back to back; figures are\n"
                         "printed per round, ratios are within the round (machines are noisy).\n");
            return arg == "--help" || arg == "-h" ? 0 : 2;
        }
    }
    if (alarms <= 0 || threads <= 0 || rounds <= 0) {
        std::fprintf(stderr, "store_bench: --alarms, --threads and --rounds must be positive\n");
        return 2;
    }
    outpost::testing::PowercutOptions counting;
    counting.simulate_cuts = false;  // count bytes and syncs only
    std::string error;
    auto vfs = outpost::testing::PowercutVfs::create(kVfsName, counting, &error);
    if (!vfs) {
        std::fprintf(stderr, "store_bench: %s\n", error.c_str());
        return 1;
    }
    char pattern[4096];
    std::snprintf(pattern, sizeof pattern, "%s/outpost-bench-XXXXXX", dir.c_str());
    if (mkdtemp(pattern) == nullptr) {
        std::fprintf(stderr, "store_bench: cannot create a directory in %s\n", dir.c_str());
        return 1;
    }
    const std::string work = pattern;

    for (int round = 1; round <= rounds; ++round) {
        const std::string prefix = work + "/r" + std::to_string(round) + "-";
        char extra[160];
        std::snprintf(extra, sizeof extra, ",\"round\":%d", round);
        Figures raw = raw_single(prefix + "raw.db", alarms, *vfs);
        print("raw_single", raw, extra);
        Figures single = store_run(prefix + "single.db", alarms, 1, *vfs);
        std::snprintf(extra, sizeof extra, ",\"round\":%d,\"ratio_to_raw\":%.3f,\"target_ratio\":0.85",
                      round, (single.alarms / single.seconds) / (raw.alarms / raw.seconds));
        print("store_single", single, extra);
        Figures parallel = store_run(prefix + "parallel.db", alarms, threads, *vfs);
        std::snprintf(extra, sizeof extra,
                      ",\"round\":%d,\"threads\":%d,\"speedup_over_single\":%.2f,\"target_speedup\":5",
                      round, threads,
                      (parallel.alarms / parallel.seconds) / (single.alarms / single.seconds));
        print("store_parallel", parallel, extra);
    }
    std::string cleanup = "rm -rf '" + work + "'";
    return std::system(cleanup.c_str()) == 0 ? 0 : 1;
}
