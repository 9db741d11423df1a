// Store benchmark: the store's write path next to what SQLite and the disk
// allow, all measured in the same run.
//
//   store_bench [--alarms N] [--threads T] [--rounds R] [--chunk C]
//               [--sync-delay-us D] [--dir DIR]
//
// Prints one JSON line per figure:
//   disk            fsync latency p50/p99 of a 4 KiB append on DIR (the raw
//                   limit under everything below), plus the added sync delay
//   raw_single      a bare SQLite loop: per transaction, the same two INSERTs
//                   the store runs (same schema, same values, same pragmas,
//                   statements prepared once)
//   store_single    Store::record_alarm from one thread; ratio_to_raw
//   store_parallel  T threads calling record_alarm at once (group commit);
//                   the sizes of the batches it formed
//   raw_batched     the raw loop committing exactly those batch sizes, in the
//                   same order: what the disk allows for that grouping;
//                   store_parallel's ratio_to_raw_batched. Both print
//                   context switches per batch (this process, getrusage):
//                   the raw loop's are the sleeps in its syncs, the floor.
//   summary         medians over the rounds, with min and max
// Raw and store runs alternate in chunks of C alarms (C x T in parallel; for
// one producer the order swaps every chunk), so a load change on a shared
// machine falls on both sides of each ratio instead of on one.
// --sync-delay-us adds D microseconds to every sync through the counting VFS
// (after the real fsync), to show a slow-syncing disk (an SD card) on a fast
// one. Bytes are counted by the same pass-through VFS: every byte the
// database and its WAL receive, checkpoints included.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.h"
#include "outpost/store.h"
#include "proof/powercut_vfs.h"
#include "store/migrations.h"
#include "store/sqlite_db.h"
#include "store/store_core.h"
#include "store/store_internal.h"

namespace {

using Clock = std::chrono::steady_clock;
using outpost::testing::IoCounters;
constexpr const char* kVfsName = "outpost-bench-counting";

struct Args {
    long alarms = 2000;
    int threads = 8;
    int rounds = 3;
    long chunk = 100;
    long sync_delay_us = 0;
    std::string dir = "/var/tmp";
};

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "store_bench: %s\n", what.c_str());
    std::exit(1);
}

void check(const outpost::Status& status, const char* what) {
    if (!status) die(std::string(what) + ": " + status.to_string());
}

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The alarm both sides write.
outpost::Alarm bench_alarm(const std::string& device) {
    outpost::Alarm alarm;
    alarm.device_id = device;
    alarm.alarm_type = "OVER_TEMPERATURE";
    alarm.severity = outpost::Severity::kCritical;
    alarm.value = 97.5;
    alarm.unit = "degC";
    alarm.text = "bearing temperature above limit";
    return alarm;
}

// The raw limit: SQLite itself doing what the store does for an alarm, with
// the store's schema, page size and pragmas and nothing else.
class RawDb {
  public:
    explicit RawDb(const std::string& path) {
        auto db = outpost::store::Db::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                           kVfsName);  // the store's cache size
        if (!db) die("raw open: " + db.status().to_string());
        db_ = std::move(*db);
        for (const char* pragma :
             {"PRAGMA page_size=1024", "PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL",
              "PRAGMA secure_delete=OFF", "PRAGMA journal_size_limit=4194304",
              "PRAGMA foreign_keys=OFF"}) {
            check(db_.exec(pragma, pragma), "raw pragma");
        }
        check(outpost::store::apply_migrations(db_, 0), "raw schema");
        begin_ = prepare("BEGIN IMMEDIATE");
        commit_ = prepare("COMMIT");
        outbox_ = prepare(
            "INSERT INTO outbox (event_id, idempotency_key, device_id, seq, event_type,"
            " topic_suffix, envelope) VALUES (?1, NULL, ?2, ?3, 'ALARM_RAISED', ?4, NULL)");
        alarm_ = prepare(
            "INSERT INTO alarm_record (id, event_id, device_id, alarm_type, event_type, severity,"
            " value, unit, text, occurred_at_ms, boot_id, uptime_ms) VALUES (?1, ?2, ?3,"
            " 'OVER_TEMPERATURE', 'ALARM_RAISED', 'critical', 97.5, 'degC',"
            " 'bearing temperature above limit', ?4, '73fa985b-d953-40f8-b83a-0ec27063dc62', ?5)");
    }
    ~RawDb() {
        for (sqlite3_stmt* stmt : {begin_, commit_, outbox_, alarm_}) sqlite3_finalize(stmt);
    }
    RawDb(const RawDb&) = delete;
    RawDb& operator=(const RawDb&) = delete;

    // `batch` alarms in one transaction.
    [[gnu::noinline]] void commit_alarms(long batch) {
        step(begin_, "begin");
        for (long i = 0; i < batch; ++i) {
            ++seq_;
            char id[48];
            std::snprintf(id, sizeof id, "019a0000-0000-7000-8000-%012lld", seq_);
            sqlite3_bind_text(outbox_, 1, id, 36, SQLITE_TRANSIENT);
            sqlite3_bind_text(outbox_, 2, "pump-0", -1, SQLITE_STATIC);
            sqlite3_bind_int64(outbox_, 3, seq_);
            sqlite3_bind_text(outbox_, 4, "alarm/pump-0", -1, SQLITE_STATIC);
            step(outbox_, "insert outbox");
            sqlite3_bind_int64(alarm_, 1, sqlite3_last_insert_rowid(db_.handle()));
            sqlite3_bind_text(alarm_, 2, id, 36, SQLITE_TRANSIENT);
            sqlite3_bind_text(alarm_, 3, "pump-0", -1, SQLITE_STATIC);
            sqlite3_bind_int64(alarm_, 4, 1700000000000 + seq_);
            sqlite3_bind_int64(alarm_, 5, 836961 + seq_);
            step(alarm_, "insert alarm");
        }
        step(commit_, "commit");
    }

  private:
    sqlite3_stmt* prepare(const char* sql) {
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v2(db_.handle(), sql, -1, &stmt, nullptr) != SQLITE_OK) {
            die(std::string("raw prepare: ") + sqlite3_errmsg(db_.handle()));
        }
        return stmt;
    }
    void step(sqlite3_stmt* stmt, const char* what) {
        const int rc = sqlite3_step(stmt);
        sqlite3_reset(stmt);
        if (rc != SQLITE_DONE)
            die(std::string("raw ") + what + ": " + sqlite3_errmsg(db_.handle()));
    }

    outpost::store::Db db_;
    sqlite3_stmt* begin_ = nullptr;
    sqlite3_stmt* commit_ = nullptr;
    sqlite3_stmt* outbox_ = nullptr;
    sqlite3_stmt* alarm_ = nullptr;
    long long seq_ = 0;
};

std::unique_ptr<outpost::Store> open_store(const std::string& path) {
    outpost::StoreOptions options;
    options.gateway_id = "gw-bench";
    options.vfs_name = kVfsName;
    options.quota_bytes = 1ull << 30;
    auto store = outpost::Store::open(path, options);
    if (!store) die(store.status().to_string());
    return std::move(*store);
}

// The batch sizes the store's writer commits, read from its connection in
// the commit listener (which runs on the batch leader, after COMMIT): the
// rowid of the last alarm inserted, minus the one before.
class BatchLog {
  public:
    explicit BatchLog(outpost::Store& store) : core_(outpost::store::core_of(store)) {
        last_id_ = sqlite3_last_insert_rowid(core_.writer().handle());
        core_.set_commit_listener([this] {
            const int64_t id = sqlite3_last_insert_rowid(core_.writer().handle());
            sizes_.push_back(id - last_id_);
            last_id_ = id;
        });
    }
    ~BatchLog() { core_.set_commit_listener(nullptr); }
    // The sizes since the last call; the listener is idle when this runs.
    std::vector<long> take() { return std::exchange(sizes_, {}); }

  private:
    outpost::store::StoreCore& core_;
    int64_t last_id_ = 0;
    std::vector<long> sizes_;
};

// Context switches of this process so far (voluntary + involuntary): each
// hand-off between a batch's leader and the next one is at least one.
long context_switches() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_nvcsw + usage.ru_nivcsw;
}

// `count` alarms through record_alarm from `threads` threads.
[[gnu::noinline]] void store_alarms(outpost::Store& store, long count, int threads) {
    auto one = [&store](const outpost::Alarm& alarm) {
        auto result = store.record_alarm(alarm);
        if (!result) die(result.status().to_string());
    };
    if (threads == 1) {
        const outpost::Alarm alarm = bench_alarm("pump-0");
        for (long i = 0; i < count; ++i) one(alarm);
        return;
    }
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            const outpost::Alarm alarm = bench_alarm("pump-" + std::to_string(t));
            for (long i = t; i < count; i += threads) one(alarm);
        });
    }
    for (auto& worker : workers) worker.join();
}

struct Side {
    double seconds = 0;
    IoCounters io;
    void add(double s, const IoCounters& delta) {
        seconds += s;
        io.wal.bytes_written += delta.wal.bytes_written;
        io.main_db.bytes_written += delta.main_db.bytes_written;
        io.wal.syncs += delta.wal.syncs;
        io.main_db.syncs += delta.main_db.syncs;
    }
};

IoCounters minus(const IoCounters& after, const IoCounters& before) {
    IoCounters d;
    d.wal.bytes_written = after.wal.bytes_written - before.wal.bytes_written;
    d.main_db.bytes_written = after.main_db.bytes_written - before.main_db.bytes_written;
    d.wal.syncs = after.wal.syncs - before.wal.syncs;
    d.main_db.syncs = after.main_db.syncs - before.main_db.syncs;
    return d;
}

// Times `run` and the counters it moved, into `side`.
template <typename Run>
void timed(outpost::testing::PowercutVfs& vfs, Side& side, Run run) {
    const IoCounters before = vfs.counters();
    const auto start = Clock::now();
    run();
    const double seconds = seconds_since(start);
    side.add(seconds, minus(vfs.counters(), before));
}

void print_side(const char* scenario, int round, long alarms, const Side& side,
                const std::string& extra) {
    const double n = static_cast<double>(alarms);
    std::printf(
        "{\"scenario\":\"%s\",\"round\":%d,\"alarms\":%ld,\"seconds\":%.3f,"
        "\"alarms_per_s\":%.0f,\"wal_bytes_per_alarm\":%.0f,\"db_bytes_per_alarm\":%.0f,"
        "\"syncs_per_alarm\":%.3f%s}\n",
        scenario, round, alarms, side.seconds, n / side.seconds,
        static_cast<double>(side.io.wal.bytes_written) / n,
        static_cast<double>(side.io.main_db.bytes_written) / n,
        static_cast<double>(side.io.wal.syncs + side.io.main_db.syncs) / n, extra.c_str());
    std::fflush(stdout);
}

struct RoundFigures {
    double raw_single_per_s = 0, single_ratio = 0, raw_batched_per_s = 0, group_ratio = 0,
           mean_batch = 0, speedup = 0;
};

RoundFigures run_round(const Args& args, int round, const std::string& prefix,
                       outpost::testing::PowercutVfs& vfs) {
    RoundFigures figures;
    // One producer against the raw loop, a transaction per alarm.
    Side raw, single;
    std::vector<double> chunk_ratios;  // raw time / store time, per chunk pair
    {
        RawDb raw_db(prefix + "raw.db");
        auto store = open_store(prefix + "single.db");
        for (long done = 0, c = 0; done < args.alarms; done += args.chunk, ++c) {
            const long n = std::min(args.chunk, args.alarms - done);
            auto run_raw = [&] {
                timed(vfs, raw, [&] {
                    for (long i = 0; i < n; ++i) raw_db.commit_alarms(1);
                });
            };
            auto run_store = [&] { timed(vfs, single, [&] { store_alarms(*store, n, 1); }); };
            const double raw_before = raw.seconds, store_before = single.seconds;
            if (c % 2 == 0) {
                run_raw();
                run_store();
            } else {
                run_store();
                run_raw();
            }
            chunk_ratios.push_back((raw.seconds - raw_before) / (single.seconds - store_before));
        }
    }
    figures.raw_single_per_s = args.alarms / raw.seconds;
    // The median pair: a burst of load on one side of one pair moves it
    // little (the ratio of the totals is printed too).
    figures.single_ratio = outpost::bench::median(chunk_ratios);
    char extra[300];
    std::snprintf(extra, sizeof extra, ",\"transactions_per_s\":%.0f", figures.raw_single_per_s);
    print_side("raw_single", round, args.alarms, raw, extra);
    std::snprintf(extra, sizeof extra,
                  ",\"ratio_to_raw\":%.3f,\"ratio_of_totals\":%.3f,\"chunk_ratio_min\":%.3f,"
                  "\"chunk_ratio_max\":%.3f,\"target_ratio\":0.95",
                  figures.single_ratio, raw.seconds / single.seconds,
                  outpost::bench::percentile(chunk_ratios, 0),
                  outpost::bench::percentile(chunk_ratios, 1));
    print_side("store_single", round, args.alarms, single, extra);

    // T producers (group commit) against the raw loop with the same batches.
    Side parallel, batched;
    std::vector<long> all_sizes;
    std::vector<double> group_ratios;  // per chunk, as for one producer
    long switches = 0;                 // during the store's chunks
    long raw_switches = 0;             // during the raw loop's (the fsync's own sleeps)
    {
        RawDb raw_db(prefix + "raw-batched.db");
        auto store = open_store(prefix + "parallel.db");
        BatchLog log(*store);
        const long chunk = args.chunk * args.threads;
        for (long done = 0, c = 0; done < args.alarms; done += chunk, ++c) {
            const long n = std::min(chunk, args.alarms - done);
            std::vector<long> sizes;
            auto run_store = [&] {
                const long switches_before = context_switches();
                timed(vfs, parallel, [&] { store_alarms(*store, n, args.threads); });
                switches += context_switches() - switches_before;
                sizes = log.take();
            };
            auto run_raw = [&] {
                const long switches_before = context_switches();
                timed(vfs, batched, [&] {
                    for (long size : sizes) raw_db.commit_alarms(size);
                });
                raw_switches += context_switches() - switches_before;
            };
            // The raw side needs the sizes first: store, then raw, in every
            // chunk (short enough that the load barely moves within one).
            const double raw_before = batched.seconds, store_before = parallel.seconds;
            run_store();
            run_raw();
            group_ratios.push_back((batched.seconds - raw_before) /
                                   (parallel.seconds - store_before));
            all_sizes.insert(all_sizes.end(), sizes.begin(), sizes.end());
        }
    }
    figures.raw_batched_per_s = args.alarms / batched.seconds;
    figures.group_ratio = outpost::bench::median(group_ratios);
    figures.mean_batch = static_cast<double>(args.alarms) / static_cast<double>(all_sizes.size());
    figures.speedup = single.seconds / parallel.seconds;
    std::vector<double> as_double(all_sizes.begin(), all_sizes.end());
    std::snprintf(
        extra, sizeof extra,
        ",\"threads\":%d,\"batches\":%zu,\"mean_batch\":%.2f,\"p50_batch\":%.0f,"
        "\"max_batch\":%.0f,\"ms_per_batch\":%.3f,\"context_switches_per_batch\":%.1f,"
        "\"speedup_over_single\":%.2f",
        args.threads, all_sizes.size(), figures.mean_batch,
        outpost::bench::percentile(as_double, 0.5), outpost::bench::percentile(as_double, 1.0),
        parallel.seconds * 1000 / static_cast<double>(all_sizes.size()),
        static_cast<double>(switches) / static_cast<double>(all_sizes.size()), figures.speedup);
    print_side("store_parallel", round, args.alarms, parallel, extra);
    std::snprintf(extra, sizeof extra,
                  ",\"transactions_per_s\":%.0f,\"ms_per_batch\":%.3f,"
                  "\"context_switches_per_batch\":%.1f,"
                  "\"store_ratio_to_raw_batched\":%.3f,\"ratio_of_totals\":%.3f,"
                  "\"target_ratio\":0.9",
                  static_cast<double>(all_sizes.size()) / batched.seconds,
                  batched.seconds * 1000 / static_cast<double>(all_sizes.size()),
                  static_cast<double>(raw_switches) / static_cast<double>(all_sizes.size()),
                  figures.group_ratio, batched.seconds / parallel.seconds);
    print_side("raw_batched", round, args.alarms, batched, extra);
    return figures;
}

// "name_median":x,"name_min":y,"name_max":z
std::string spread(const char* name, std::vector<double> values, const char* format) {
    std::sort(values.begin(), values.end());
    char out[200];
    std::string f =
        std::string(",\"%s_median\":") + format + ",\"%s_min\":" + format + ",\"%s_max\":" + format;
    std::snprintf(out, sizeof out, f.c_str(), name, outpost::bench::median(values), name,
                  values.front(), name, values.back());
    return out;
}

bool parse(int argc, char** argv, Args& args) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--alarms" && has_value) {
            args.alarms = std::atol(argv[++i]);
        } else if (arg == "--threads" && has_value) {
            args.threads = std::atoi(argv[++i]);
        } else if (arg == "--rounds" && has_value) {
            args.rounds = std::atoi(argv[++i]);
        } else if (arg == "--chunk" && has_value) {
            args.chunk = std::atol(argv[++i]);
        } else if (arg == "--sync-delay-us" && has_value) {
            args.sync_delay_us = std::atol(argv[++i]);
        } else if (arg == "--dir" && has_value) {
            args.dir = argv[++i];
        } else {
            return false;
        }
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!parse(argc, argv, args)) {
        std::fprintf(stderr,
                     "usage: store_bench [--alarms N (2000)] [--threads T (8)] [--rounds R (3)]\n"
                     "                   [--chunk C (100)] [--sync-delay-us D (0)]\n"
                     "                   [--dir DIR (/var/tmp; the disk you care about, not "
                     "tmpfs)]\n"
                     "Raw and store runs alternate in chunks of C alarms; ratios are within a\n"
                     "round, and the summary line gives their medians over the rounds.\n");
        return 2;
    }
    if (args.alarms <= 0 || args.threads <= 0 || args.rounds <= 0 || args.chunk <= 0 ||
        args.sync_delay_us < 0) {
        std::fprintf(stderr, "store_bench: counts must be positive, the delay not negative\n");
        return 2;
    }
    outpost::testing::PowercutOptions counting;
    counting.simulate_cuts = false;  // count bytes and syncs only
    counting.sync_delay = std::chrono::microseconds(args.sync_delay_us);
    std::string error;
    auto vfs = outpost::testing::PowercutVfs::create(kVfsName, counting, &error);
    if (!vfs) die(error);
    char pattern[4096];
    std::snprintf(pattern, sizeof pattern, "%s/outpost-bench-XXXXXX", args.dir.c_str());
    if (mkdtemp(pattern) == nullptr) die("cannot create a directory in " + args.dir);
    const std::string work = pattern;

    const std::vector<double> syncs = outpost::bench::disk_sync_ms(work, 200);
    std::printf(
        "{\"scenario\":\"disk\",\"dir\":\"%s\",\"fsyncs\":%zu,\"fsync_p50_ms\":%.3f,"
        "\"fsync_p99_ms\":%.3f,\"sync_delay_us\":%ld}\n",
        args.dir.c_str(), syncs.size(), outpost::bench::percentile(syncs, 0.5),
        outpost::bench::percentile(syncs, 0.99), args.sync_delay_us);
    std::fflush(stdout);

    std::vector<double> raw_single, single_ratio, raw_batched, group_ratio, mean_batch, speedup;
    for (int round = 1; round <= args.rounds; ++round) {
        const RoundFigures f =
            run_round(args, round, work + "/r" + std::to_string(round) + "-", *vfs);
        raw_single.push_back(f.raw_single_per_s);
        single_ratio.push_back(f.single_ratio);
        raw_batched.push_back(f.raw_batched_per_s);
        group_ratio.push_back(f.group_ratio);
        mean_batch.push_back(f.mean_batch);
        speedup.push_back(f.speedup);
    }
    std::printf(
        "{\"scenario\":\"summary\",\"rounds\":%d,\"sync_delay_us\":%ld%s%s%s%s%s%s,"
        "\"target_single_ratio\":0.95,\"target_group_ratio\":0.9}\n",
        args.rounds, args.sync_delay_us, spread("raw_single_tx_per_s", raw_single, "%.0f").c_str(),
        spread("single_ratio", single_ratio, "%.3f").c_str(),
        spread("raw_batched_alarms_per_s", raw_batched, "%.0f").c_str(),
        spread("group_ratio", group_ratio, "%.3f").c_str(),
        spread("mean_batch", mean_batch, "%.2f").c_str(),
        spread("speedup_over_single", speedup, "%.2f").c_str());
    std::string cleanup = "rm -rf '" + work + "'";
    return std::system(cleanup.c_str()) == 0 ? 0 : 1;
}
