// Full store vs empty store, same run: does anything grow with the table?
//
//   store_scale_bench [--quota-mib=64] [--alarms=2000] [--repeats=5] [--keep=1]
//
// Builds two stores through the counting VFS: an empty one, and one filled
// to its quota (alarms from 20 devices, inserted in large batches through the
// store's own writer: 80% of the quota SENT, the rest PENDING; see fill()).
// On each, in the same order:
//   open_ms           Store::open without quick_check (what outpostctl does), median
//   status_ms         `outpostctl --db PATH status`, a whole process, median
//   show_ms           `outpostctl --db PATH show EVENT_ID`, a whole process, median
//   record_p99_ms     Store::record_alarm from one thread, --alarms of them;
//                     next to it the disk's fsync p50/p99 (200 4 KiB appends
//                     just before) and what the slowest 1% did besides their
//                     insert (a checkpoint; a large commit: leaf split,
//                     summary row or purge)
//   bytes_per_alarm   WAL + database bytes those alarms wrote (checkpoints included)
//   drain_cpu_per_s   CPU seconds per second of this process (publisher, paho)
//                     while a real mosquitto drains the backlog; drain_per_s its
//                     rate, drain_cpu_us_per_alarm the two together (the full
//                     store drains ~40,000 rows, the empty one 2,000)
//   idle_cpu_per_s    the same over 6 s with nothing pending (probes and a rescan)
// and prints one JSON line per store, then the ratios full/empty (target 1.5).
// Timings on a shared machine are noisy: compare the ratios, not the numbers.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.h"
#include "mosquitto_fixture.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "proof/powercut_vfs.h"
#include "store/outbox.h"
#include "store/record.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "temp_dir.h"

namespace {

using namespace outpost;
using Steady = std::chrono::steady_clock;
constexpr const char* kVfsName = "outpost-scale-counting";

struct Args {
    int quota_mib = 64;
    int alarms = 2000;
    int repeats = 5;
    int keep = 0;  // 1: leave both stores in a directory under /var/tmp
};

struct Figures {
    int64_t rows = 0;
    uint64_t database_bytes = 0;
    double open_ms = 0, status_ms = 0, show_ms = 0, record_p50_ms = 0, record_p99_ms = 0,
           bytes_per_alarm = 0;
    double drain_cpu_per_s = 0, drain_per_s = 0, drain_cpu_us_per_alarm = 0, idle_cpu_per_s = 0;
    // record_alarm's tail: commits that checkpointed or were large (leaf
    // split, summary row, purge), how many of each are at or above the p99,
    // and the p99 of the others.
    int checkpoint_commits = 0, large_commits = 0, tail_checkpoint = 0, tail_large = 0,
        tail_plain = 0;
    double record_plain_p99_ms = 0;
    double fsync_p50_ms = 0, fsync_p99_ms = 0;  // the disk, just before
};

std::string dir_of(const std::string& path) { return path.substr(0, path.rfind('/')); }

[[noreturn]] void fail(const std::string& what, const Status& status) {
    std::fprintf(stderr, "store_scale_bench: %s: %s\n", what.c_str(), status.to_string().c_str());
    std::exit(1);
}

double ms_since(Steady::time_point start) {
    return std::chrono::duration<double, std::milli>(Steady::now() - start).count();
}

double cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

StoreOptions options_for(const Args& args) {
    StoreOptions options;
    options.gateway_id = "gw-bench";
    options.vfs_name = kVfsName;
    options.quota_bytes = static_cast<uint64_t>(args.quota_mib) << 20;
    options.check_on_open = false;
    return options;
}

std::unique_ptr<Store> open(const std::string& path, const Args& args) {
    auto store = Store::open(path, options_for(args));
    if (!store) fail("open " + path, store.status());
    return std::move(*store);
}

// The tests' sample alarm, from one of 20 devices.
Alarm bench_alarm(int device) {
    return testing::sample_alarm("pump-" + std::to_string(device));
}

// Appends alarms in transactions of 5,000 until the database holds
// `target` bytes.
int64_t fill_to(Store& store, uint64_t target) {
    int64_t rows = 0;
    for (;;) {
        auto stats = store.stats();
        if (!stats) fail("stats", stats.status());
        if (stats->database_bytes >= target) return rows;
        store::WriteOp op;
        op.apply = [&](store::BatchContext& context) {
            for (int i = 0; i < 5000; ++i) {
                RecordedEvent out;
                Status status = store::insert_alarm(context, bench_alarm(i % 20), &out);
                if (!status) return status;
            }
            return Status::ok();
        };
        Status status = store::core_of(store).submit(op);
        if (!status) fail("filling", status);
        rows += 5000;
    }
}

// Fills `store` to its quota: alarms up to 80% of it, all marked SENT (a
// SENT mark makes a row longer), then PENDING alarms up to the quota less
// 1 MiB: the shape of a gateway whose broker went away after a long run.
void fill(Store& store) {
    store::StoreCore& core = store::core_of(store);
    const uint64_t quota = store.options().quota_bytes;
    const int64_t sent_rows = fill_to(store, quota / 10 * 8);
    auto epoch = store::acquire_epoch(core, "bench fill");
    if (!epoch) fail("epoch", epoch.status());
    for (int64_t first = 1; first <= sent_rows; first += 5000) {
        std::vector<int64_t> ids;
        for (int64_t id = first; id < first + 5000 && id <= sent_rows; ++id) ids.push_back(id);
        Status status = store::mark_sent(core, ids, *epoch);
        if (!status) fail("marking SENT", status);
    }
    fill_to(store, quota - (1u << 20));
}

// Runs outpostctl with `words`; returns its wall time in ms.
double run_outpostctl(const std::vector<std::string>& words) {
    const auto start = Steady::now();
    pid_t pid = fork();
    if (pid == 0) {
        std::vector<char*> argv;
        std::string program = OUTPOST_OUTPOSTCTL;
        argv.push_back(program.data());
        std::vector<std::string> copy = words;
        for (auto& word : copy) argv.push_back(word.data());
        argv.push_back(nullptr);
        if (!freopen("/dev/null", "w", stdout)) _exit(127);
        execv(program.c_str(), argv.data());
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "store_scale_bench: outpostctl %s failed\n", words.back().c_str());
        std::exit(1);
    }
    return ms_since(start);
}

double median_of(int repeats, const std::function<double()>& sample) {
    std::vector<double> samples;
    for (int i = 0; i < repeats; ++i) samples.push_back(sample());
    return bench::median(samples);
}

void measure_publisher(Store& store, const testing::Mosquitto& broker, Figures& figures) {
    PublisherOptions options;
    options.endpoint.uri = broker.uri();
    options.endpoint.client_id = "scale-bench";
    options.max_in_flight = 20;
    options.receipts = false;  // no bridge here: the drain ends at the PUBACKs
    auto pending = store.stats();
    if (!pending) fail("stats", pending.status());
    const double cpu_before = cpu_seconds();
    const auto start = Steady::now();
    auto publisher = Publisher::start(store, options);
    if (!publisher) fail("publisher", publisher.status());
    const auto deadline = Steady::now() + std::chrono::minutes(10);
    while ((*publisher)->status().sent < static_cast<uint64_t>(pending->pending)) {
        if (Steady::now() > deadline)
            fail("draining", Status::error(StatusCode::kTimeout, "10 min"));
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const double drain_s = ms_since(start) / 1000;
    figures.drain_cpu_per_s = (cpu_seconds() - cpu_before) / drain_s;
    figures.drain_per_s = static_cast<double>(pending->pending) / drain_s;
    figures.drain_cpu_us_per_alarm = figures.drain_cpu_per_s / figures.drain_per_s * 1e6;
    // Idle: nothing pending; the probes (1 s) and a rescan (5 s) still run.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const double idle_before = cpu_seconds();
    std::this_thread::sleep_for(std::chrono::seconds(6));
    figures.idle_cpu_per_s = (cpu_seconds() - idle_before) / 6;
    (*publisher)->stop().ignore_error("the figures are taken");
}

// What else an alarm's commit did, from the VFS's counts around it: a
// checkpoint writes the database file; a leaf split, a summary row or a
// purge (quota) writes more WAL frames than the two leaves of the happy path.
enum class Cause { kPlain, kCheckpoint, kLargeCommit };

Cause cause_of(const testing::IoCounters& before, const testing::IoCounters& after) {
    if (after.main_db.bytes_written > before.main_db.bytes_written) return Cause::kCheckpoint;
    constexpr uint64_t kHappyPathFrames = 3;  // two leaves, rounding
    if (after.wal.bytes_written - before.wal.bytes_written > kHappyPathFrames * (4096 + 24)) {
        return Cause::kLargeCommit;
    }
    return Cause::kPlain;
}

// Which alarms make the p99: the slowest 1% by cause, and the p99 of the
// alarms that did nothing but their own insert.
void explain_tail(const std::vector<double>& latencies, const std::vector<Cause>& causes,
                  Figures& figures) {
    const double p99 = bench::percentile(latencies, 0.99);
    std::vector<double> plain;
    for (size_t i = 0; i < latencies.size(); ++i) {
        if (causes[i] == Cause::kPlain) plain.push_back(latencies[i]);
        if (causes[i] == Cause::kCheckpoint) figures.checkpoint_commits++;
        if (causes[i] == Cause::kLargeCommit) figures.large_commits++;
        if (latencies[i] < p99) continue;
        if (causes[i] == Cause::kCheckpoint) figures.tail_checkpoint++;
        if (causes[i] == Cause::kLargeCommit) figures.tail_large++;
        if (causes[i] == Cause::kPlain) figures.tail_plain++;
    }
    figures.record_plain_p99_ms = bench::percentile(plain, 0.99);
}

Figures measure(const std::string& path, bool full, const Args& args, testing::PowercutVfs& vfs,
                const testing::Mosquitto& broker) {
    Figures figures;
    std::string probe_id;
    {
        auto store = open(path, args);
        if (full) {
            fill(*store);
            // The kernel writing 64 MiB back while record_alarm fsyncs would
            // be measured as the store's cost: settle it first.
            ::sync();
        }
        // The disk's own fsync latency right now, next to record_alarm's.
        const auto syncs = bench::disk_sync_ms(dir_of(path), 200);
        figures.fsync_p50_ms = bench::percentile(syncs, 0.50);
        figures.fsync_p99_ms = bench::percentile(syncs, 0.99);
        // record_alarm: latency and bytes written per alarm.
        std::vector<double> latencies;
        std::vector<Cause> causes;
        vfs.reset_counters();
        for (int i = 0; i < args.alarms; ++i) {
            const auto before = vfs.counters();
            const auto start = Steady::now();
            auto recorded = store->record_alarm(bench_alarm(i % 20));
            latencies.push_back(ms_since(start));
            if (!recorded) fail("record_alarm", recorded.status());
            if (i == args.alarms / 2) probe_id = recorded->event_id;
            causes.push_back(cause_of(before, vfs.counters()));
        }
        const auto io = vfs.counters();
        figures.record_p50_ms = bench::percentile(latencies, 0.50);
        figures.record_p99_ms = bench::percentile(latencies, 0.99);
        explain_tail(latencies, causes, figures);
        figures.bytes_per_alarm =
            static_cast<double>(io.wal.bytes_written + io.main_db.bytes_written) / args.alarms;
        auto stats = store->stats();
        if (!stats) fail("stats", stats.status());
        figures.rows = stats->pending + stats->sent + stats->dead;
        figures.database_bytes = stats->database_bytes;
    }
    figures.open_ms = median_of(args.repeats, [&] {
        const auto start = Steady::now();
        auto store = open(path, args);
        return ms_since(start);
    });
    figures.status_ms = median_of(args.repeats, [&] {
        return run_outpostctl({"--db", path, "status"});
    });
    figures.show_ms = median_of(args.repeats, [&] {
        return run_outpostctl({"--db", path, "show", probe_id});
    });
    auto store = open(path, args);
    measure_publisher(*store, broker, figures);
    return figures;
}

void print(const char* name, const Figures& f) {
    std::printf(
        "{\"store\":\"%s\",\"rows\":%lld,\"database_bytes\":%llu,\"open_ms\":%.2f,"
        "\"status_ms\":%.2f,\"show_ms\":%.2f,\"record_p50_ms\":%.2f,\"record_p99_ms\":%.2f,"
        "\"bytes_per_alarm\":%.0f,\"drain_per_s\":%.0f,\"drain_cpu_per_s\":%.3f,"
        "\"drain_cpu_us_per_alarm\":%.1f,\"idle_cpu_per_s\":%.4f,\"checkpoint_commits\":%d,"
        "\"large_commits\":%d,\"p99_tail_checkpoint\":%d,\"p99_tail_large\":%d,"
        "\"p99_tail_plain\":%d,\"record_plain_p99_ms\":%.2f,\"fsync_p50_ms\":%.2f,"
        "\"fsync_p99_ms\":%.2f}\n",
        name, static_cast<long long>(f.rows), static_cast<unsigned long long>(f.database_bytes),
        f.open_ms, f.status_ms, f.show_ms, f.record_p50_ms, f.record_p99_ms, f.bytes_per_alarm,
        f.drain_per_s, f.drain_cpu_per_s, f.drain_cpu_us_per_alarm, f.idle_cpu_per_s,
        f.checkpoint_commits, f.large_commits, f.tail_checkpoint, f.tail_large, f.tail_plain,
        f.record_plain_p99_ms, f.fsync_p50_ms, f.fsync_p99_ms);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!bench::parse_int_flags(argc, argv,
                                {{"--quota-mib", &args.quota_mib},
                                 {"--alarms", &args.alarms},
                                 {"--repeats", &args.repeats},
                                 {"--keep", &args.keep}},
                                0) ||
        args.quota_mib < 1 || args.alarms < 1 || args.repeats < 1) {
        std::fprintf(stderr,
                     "store_scale_bench: --quota-mib, --alarms and --repeats must be positive\n");
        return 2;
    }
    if (!testing::mosquitto_available()) {
        std::fprintf(stderr, "mosquitto is not installed\n");
        return 77;
    }
    testing::PowercutOptions counting;
    counting.simulate_cuts = false;  // count bytes only
    std::string error;
    auto vfs = testing::PowercutVfs::create(kVfsName, counting, &error);
    if (!vfs) {
        std::fprintf(stderr, "store_scale_bench: %s\n", error.c_str());
        return 1;
    }
    testing::MosquittoConfig config;
    config.max_inflight_messages = 20;
    testing::Mosquitto broker(config);
    testing::TempDir temp;
    std::string dir = temp.path();
    char kept[] = "/var/tmp/store-scale-XXXXXX";
    if (args.keep != 0) {
        if (mkdtemp(kept) == nullptr) fail("mkdtemp", Status::error(StatusCode::kIoError, kept));
        dir = kept;
        std::fprintf(stderr, "store_scale_bench: stores kept in %s\n", kept);
    }
    const Figures empty = measure(dir + "/empty.db", false, args, *vfs, broker);
    print("empty", empty);
    const Figures full = measure(dir + "/full.db", true, args, *vfs, broker);
    print("full", full);
    auto ratio = [](double full_value, double empty_value) {
        return empty_value > 0 ? full_value / empty_value : 0.0;
    };
    std::printf(
        "{\"ratio\":\"full/empty\",\"target\":1.5,\"open\":%.2f,\"status\":%.2f,"
        "\"show\":%.2f,\"record_p99\":%.2f,\"bytes_per_alarm\":%.2f,"
        "\"drain_cpu_per_s\":%.2f,\"drain_cpu_per_alarm\":%.2f,\"idle_cpu_per_s\":%.2f,"
        "\"disk_fsync_p99\":%.2f}\n",
        ratio(full.open_ms, empty.open_ms), ratio(full.status_ms, empty.status_ms),
        ratio(full.show_ms, empty.show_ms), ratio(full.record_p99_ms, empty.record_p99_ms),
        ratio(full.bytes_per_alarm, empty.bytes_per_alarm),
        ratio(full.drain_cpu_per_s, empty.drain_cpu_per_s),
        ratio(full.drain_cpu_us_per_alarm, empty.drain_cpu_us_per_alarm),
        ratio(full.idle_cpu_per_s, empty.idle_cpu_per_s),
        ratio(full.fsync_p99_ms, empty.fsync_p99_ms));
    return 0;
}
