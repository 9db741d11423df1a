// Telemetry must never delay an alarm (DESIGN.md promise 6). Against one
// mosquitto this program starts itself on loopback, alarms go at a steady
// rate through a Store (a real file) and the Publisher while the load
// changes every --slice-ms, in turn (one slice of each kind per cycle):
//   quiet   no telemetry;
//   lane    firmware (a generator thread) sends --telemetry-rate datagrams/s
//           to outpost-telemetry, run as outpostd runs it (its own process,
//           started by the daemon's TelemetrySupervisor, "scheduling": "nice");
//   idle    the same to a second outpost-telemetry with "scheduling": "idle"
//           (SCHED_IDLE) (--idle-lane=0 leaves it out);
//   paho    the control: the same telemetry at the same rate from a bare
//           paho client in its own process (paho_telemetry_source), no lane
//           of ours (--control=0 leaves it out).
// mosquitto_sub drains the telemetry topics in every loaded kind. Each kind
// has its own store per round and a publisher per slice (connected before
// the slice's load starts, stopped once the slice's alarms are SENT): with
// a second publisher connected, idle, in this process, paho 1.3.12 held
// PUBACKs up to a second (its I/O threads serve every client of the
// process). After each slice the load stops and the telemetry ring empties
// before the next slice records. Pairing short slices puts every kind on
// the same disk and the same neighbours' load, which phases tens of seconds
// apart did not (the commit's fsync moves by milliseconds between them).
//
// Per kind, in microseconds: the publisher's record->PUBACK and
// publish->PUBACK p50/p99 per slice (its own percentiles), record_alarm()
// alone (the store's commit) and an independent subscriber's
// record->arrival over every alarm, the last two also as quantiles (0 to 1
// by 0.05, 0.99, 0.999) for a plot of their distributions. The verdict, per
// loaded kind: ratio to quiet of the median over slices of the publisher's
// p99s, and of the p99s pooled over all slices of record_alarm() and of the
// subscriber's clock.
// The limits of the same run, before the first and after the last round: the
// fsync p50/p99 of the store's disk (4 KiB appends, fdatasync) and a bare
// paho client's QoS 1 round trip. Also the load average at start and end,
// the CPU each lane process spent per published message, and per kind the
// time the alarm side's threads waited for a CPU per alarm (schedstat):
// the figure a CPU priority acts on, less noisy than a p99 on a shared box.
//
// --alarm-nice-boost=N runs the alarm side (this process's threads: recorder,
// publisher, marker, paho; not mosquitto, mosquitto_sub or the lanes) at nice
// -N, as a systemd unit's Nice= would run outpostd. Needs CAP_SYS_NICE.
//
// Usage: telemetry_bench [--rate=200] [--seconds=10] [--rounds=3]
//                        [--slice-ms=2000] [--telemetry-rate=5000]
//                        [--telemetry-cap=5000] [--window=20] [--devices=16]
//                        [--idle-lane=1] [--control=1] [--alarm-nice-boost=0]
// --seconds is per kind and round.
#include <mqtt/async_client.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.h"
#include "daemon/telemetry_supervisor.h"
#include "mosquitto_fixture.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "paho/client_setup.h"
#include "process_cpu.h"
#include "sensor_telemetry.h"
#include "temp_dir.h"
#include "thread_cpu.h"
#include "unix_datagram.h"

using namespace outpost;
using Steady = std::chrono::steady_clock;

namespace {

struct Args {
    int rate = 200;
    int seconds = 10;
    int rounds = 3;
    int slice_ms = 2000;
    int telemetry_rate = 5000;
    int telemetry_cap = 5000;  // TelemetryOptions::max_send_rate; 0: none
    int window = 20;
    int devices = 16;
    int idle_lane = 1;
    int control = 1;
    int alarm_nice_boost = 0;
};

// After a slice's load stops (and before a slice records): the broker, the
// consumer and the lane finish what the load left.
constexpr std::chrono::milliseconds kSettle{300};
// The gateway id of every store and of the telemetry sources.
constexpr const char* kGateway = "gw-bench";
// The generator thread's name: the one thread of this process that is not
// the alarm side.
constexpr const char* kFirmwareThread = "bench-firmware";

// Nanoseconds the alarm side's threads (every thread of this process but
// the generator's) have waited on a run queue for a CPU so far
// (/proc/self/task/TID/schedstat, second field): what a CPU priority changes.
// Threads that end take their share with them; the caller reads it around a
// stretch in which the threads it cares about live.
uint64_t alarm_side_runqueue_wait_ns() {
    uint64_t total = 0;
    for (const auto& [tid, thread] : bench::sample_thread_cpu(::getpid()).threads) {
        if (thread.name != kFirmwareThread) total += thread.wait_ns;
    }
    return total;
}

// A plain paho subscriber, independent of the code under test; `on_message`
// runs on paho's thread.
class BenchSubscriber final {
  public:
    BenchSubscriber(const std::string& uri, const std::string& client_id, const std::string& filter,
                    int qos, std::function<void(const mqtt::const_message_ptr&)> on_message)
        : client_(uri, client_id, mqtt::create_options(MQTTVERSION_5),
                  static_cast<mqtt::iclient_persistence*>(nullptr)) {
        client_.set_message_callback(std::move(on_message));
        mqtt::connect_options options;
        options.set_mqtt_version(MQTTVERSION_5);
        options.set_clean_start(true);
        client_.connect(options)->wait_for(std::chrono::seconds(5));
        client_.subscribe(filter, qos)->wait_for(std::chrono::seconds(5));
    }
    ~BenchSubscriber() { client_.disconnect()->wait_for(std::chrono::seconds(5)); }

  private:
    mqtt::async_client client_;
};

// When each alarm reached a subscriber, by eventId: a second clock, outside
// the code under test, next to the publisher's record->PUBACK figure.
class DeliveryClock final {
  public:
    explicit DeliveryClock(const std::string& uri)
        : subscriber_(uri, "bench-alarm-watch", std::string("outpost/") + kGateway + "/alarm/#", 1,
                      [this](const mqtt::const_message_ptr& message) { arrived(message); }) {}

    void recorded(const std::string& event_id, Steady::time_point before) {
        std::lock_guard<std::mutex> lock(mutex_);
        recorded_[event_id] = before;
    }

    // Appends the microseconds from the start of record_alarm() to arrival,
    // per alarm, to `out`.
    void latencies_us(std::vector<double>& out) const {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto& [id, before] : recorded_) {
            auto arrival = arrived_.find(id);
            if (arrival == arrived_.end()) continue;
            out.push_back(
                std::chrono::duration<double, std::micro>(arrival->second - before).count());
        }
    }

  private:
    void arrived(const mqtt::const_message_ptr& message) {
        const auto now = Steady::now();
        auto envelope = nlohmann::json::parse(message->to_string(), nullptr, false);
        if (!envelope.is_object()) return;
        std::lock_guard<std::mutex> lock(mutex_);
        arrived_.emplace(envelope.value("eventId", ""), now);  // the first arrival counts
    }

    mutable std::mutex mutex_;
    std::map<std::string, Steady::time_point> recorded_;  // guarded by mutex_
    std::map<std::string, Steady::time_point> arrived_;   // guarded by mutex_
    BenchSubscriber subscriber_;                          // last: its callback uses the maps
};

// The cloud side's telemetry consumer, in a process of its own (mosquitto_sub),
// one line per message. In this process it would share paho's send and
// receive threads with the publisher, which no gateway does.
class TelemetryConsumer final {
  public:
    TelemetryConsumer(const testing::Mosquitto& broker, const testing::TempDir& dir)
        : output_(dir.file("telemetry-consumer.out")) {
        const std::string id = "bench-telemetry-consumer";
        pid_ = testing::spawn_logged({testing::find_program("mosquitto_sub"), "-h", "127.0.0.1",
                                      "-p", std::to_string(broker.port()), "-V", "mqttv5", "-q",
                                      "0", "-t", "outpost/+/telemetry/#", "-F", "%t", "-i", id},
                                     output_);
        for (int i = 0; i < 1000 && broker.log().find("SUBACK to " + id) == std::string::npos;
             ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    ~TelemetryConsumer() { testing::terminate_child(pid_); }

    uint64_t received() const {
        const std::string lines = testing::read_file(output_);
        return static_cast<uint64_t>(std::count(lines.begin(), lines.end(), '\n'));
    }

  private:
    const std::string output_;
    pid_t pid_ = -1;
};

// Firmware: sends `per_second` datagrams to the telemetry socket, paced per
// millisecond, until stop().
class TelemetryGenerator final {
  public:
    TelemetryGenerator(std::string socket_path, int per_second)
        : socket_path_(std::move(socket_path)) {
        thread_ = std::thread([this, per_second] {
            ::pthread_setname_np(::pthread_self(), kFirmwareThread);
            uint64_t n = 0;
            for (int64_t tick = 0; !stopping_; ++tick) {
                std::this_thread::sleep_until(start_ + std::chrono::milliseconds(tick));
                // Due by the end of this millisecond: keeps the rate exact at any per_second.
                const auto due = static_cast<uint64_t>((tick + 1) * per_second / 1000);
                for (; n < due; ++n) {
                    if (testing::send_datagram(
                            socket_path_, bench::sensor_key(n) + "\n" + bench::sensor_payload(n))) {
                        ++sent_;
                    }
                }
            }
        });
    }
    ~TelemetryGenerator() { stop(); }

    // Stops the thread; returns the datagrams sent and the seconds it ran.
    std::pair<uint64_t, double> stop() {
        stopping_ = true;
        if (thread_.joinable()) thread_.join();
        return {sent_.load(), std::chrono::duration<double>(Steady::now() - start_).count()};
    }

  private:
    const std::string socket_path_;
    const Steady::time_point start_ = Steady::now();
    std::atomic<bool> stopping_{false};
    std::atomic<uint64_t> sent_{0};
    std::thread thread_;
};

// The control's source: paho_telemetry_source in its own process, from
// connected to stop().
class PahoTelemetrySource final {
  public:
    PahoTelemetrySource(const testing::Mosquitto& broker, const testing::TempDir& dir,
                        int per_second)
        : log_(dir.file("paho-source-" + std::to_string(++started_) + ".log")) {
        pid_ = testing::spawn_logged(
            {OUTPOST_PAHO_TELEMETRY_SOURCE, broker.uri(), kGateway, std::to_string(per_second)},
            log_);
        for (int i = 0; i < 1000 && testing::read_file(log_).find("connected") == std::string::npos;
             ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        start_ = Steady::now();
    }
    ~PahoTelemetrySource() { stop(); }

    // Stops the process; returns the messages it published and the seconds
    // since it connected.
    std::pair<uint64_t, double> stop() {
        if (pid_ > 0) {
            testing::terminate_child(pid_);
            pid_ = -1;
            seconds_ = std::chrono::duration<double>(Steady::now() - start_).count();
        }
        const std::string log = testing::read_file(log_);
        const size_t at = log.find("published ");
        return {at == std::string::npos ? 0 : std::stoull(log.substr(at + 10)), seconds_};
    }

  private:
    static inline int started_ = 0;
    const std::string log_;
    pid_t pid_ = -1;
    Steady::time_point start_;
    double seconds_ = 0;
};

// The limit: a bare paho client's QoS 1 publish -> PUBACK on this loopback,
// one at a time, in microseconds.
std::vector<double> loopback_round_trips_us(const testing::Mosquitto& broker, int samples) {
    mqtt::async_client client(broker.uri(), "bench-round-trip", mqtt::create_options(MQTTVERSION_5),
                              static_cast<mqtt::iclient_persistence*>(nullptr));
    mqtt::connect_options options;
    options.set_mqtt_version(MQTTVERSION_5);
    options.set_clean_start(true);
    client.connect(options)->wait_for(std::chrono::seconds(5));
    std::vector<double> out;
    const std::string payload(200, 'x');  // about an alarm envelope's size
    for (int i = 0; i < samples; ++i) {
        const auto before = Steady::now();
        auto token = client.publish("bench/round-trip", payload.data(), payload.size(), 1, false);
        if (!token->wait_for(std::chrono::seconds(5))) continue;
        out.push_back(std::chrono::duration<double, std::micro>(Steady::now() - before).count());
    }
    client.disconnect()->wait_for(std::chrono::seconds(5));
    return out;
}

// The telemetry process as outpostd starts it, from a configuration file
// with only what it reads.
std::unique_ptr<daemon::TelemetrySupervisor> start_telemetry_process(
    const testing::Mosquitto& broker, const testing::TempDir& dir, const Args& args,
    const std::string& name, const std::string& scheduling) {
    const std::string config_path = dir.file(name + ".json");
    const nlohmann::json config = {
        {"gateway_id", kGateway},
        {"database", {{"path", dir.file("unused.db")}}},  // required, never opened
        {"broker", {{"uri", broker.uri()}}},
        {"telemetry",
         {{"client_id", "bench-" + name},
          {"datagram_socket", dir.file(name + ".sock")},
          {"max_send_rate", args.telemetry_cap},
          {"scheduling", scheduling}}},
        {"logging", {{"level", "warn"}}}};
    std::ofstream(config_path) << config.dump();
    daemon::TelemetrySupervisorOptions options;
    options.command = {OUTPOST_TELEMETRY_PROGRAM, "--config", config_path};
    auto supervisor = daemon::TelemetrySupervisor::start(options);
    if (!supervisor) {
        std::fprintf(stderr, "telemetry process: %s\n", supervisor.status().to_string().c_str());
        std::exit(1);
    }
    while (!(*supervisor)->stats().connected) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return std::move(*supervisor);
}

std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string one, five, fifteen;
    in >> one >> five >> fifteen;
    return one + " " + five + " " + fifteen;
}

// One kind of slice: its load, and what it measured.
struct Kind {
    std::string name;
    daemon::TelemetrySupervisor* lane = nullptr;  // lane kinds: the process it feeds
    std::string socket_path;                      // lane kinds
    bool paho = false;                            // the control
    // This round's store.
    std::unique_ptr<testing::TempDir> dir;
    std::unique_ptr<Store> store;
    int slices_this_round = 0;
    uint64_t alarms = 0;  // over the run; device ids go round
    // Over the run.
    std::vector<double> record_p99_us, publish_p99_us;  // publisher's, one per slice
    std::vector<double> record_p50_us;
    std::vector<double> record_call_us;  // record_alarm() alone, every alarm
    std::vector<double> delivery_us;     // the subscriber's record->arrival, every alarm
    uint64_t runqueue_wait_ns = 0;       // the alarm side's, while recording and draining
    bool drained = true;
    uint64_t telemetry_sent = 0;
    double telemetry_seconds = 0;
    uint64_t lane_published = 0;
    double lane_cpu_seconds = 0;
};

void open_round(Kind& kind, int round) {
    kind.dir = std::make_unique<testing::TempDir>();
    StoreOptions store_options;
    store_options.gateway_id = kGateway;
    auto store =
        Store::open(kind.dir->file(kind.name + "-" + std::to_string(round) + ".db"), store_options);
    if (!store) {
        std::fprintf(stderr, "store: %s\n", store.status().to_string().c_str());
        std::exit(1);
    }
    kind.store = std::move(*store);
    kind.slices_this_round = 0;
}

// The round's line: medians of its slices' publisher percentiles.
nlohmann::json close_round(Kind& kind, int round) {
    kind.store.reset();
    kind.dir.reset();
    const auto last = [&](const std::vector<double>& all) {
        return std::vector<double>(all.end() - kind.slices_this_round, all.end());
    };
    return {{"kind", kind.name},
            {"round", round},
            {"slices", kind.slices_this_round},
            {"drained", kind.drained},
            {"record_to_puback_p50_us_slice_median", bench::median(last(kind.record_p50_us))},
            {"record_to_puback_p99_us_slice_median", bench::median(last(kind.record_p99_us))},
            {"publish_to_puback_p99_us_slice_median", bench::median(last(kind.publish_p99_us))},
            {"record_to_delivery_p99_us_so_far",
             std::lround(bench::percentile(kind.delivery_us, 0.99))}};
}

std::unique_ptr<Publisher> start_publisher(Kind& kind, const testing::Mosquitto& broker,
                                           const Args& args) {
    PublisherOptions options;
    options.endpoint.uri = broker.uri();
    options.endpoint.client_id = "bench-publisher-" + kind.name;
    options.max_in_flight = args.window;
    options.receipts = false;  // no bridge here: SENT is the end, as for bare paho
    auto publisher = Publisher::start(*kind.store, options);
    if (!publisher) std::exit(1);
    while (!(*publisher)->status().connected) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return std::move(*publisher);
}

// Waits until `count` alarms are SENT and takes the publisher's figures.
void finish_publisher(Kind& kind, const Publisher& publisher, int count) {
    const auto deadline = Steady::now() + std::chrono::seconds(30);
    while (publisher.status().sent < static_cast<uint64_t>(count) && Steady::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    const PublisherStatus status = publisher.status();
    kind.drained = kind.drained && status.sent >= static_cast<uint64_t>(count);
    kind.record_p50_us.push_back(static_cast<double>(status.commit_to_ack_p50_us));
    kind.record_p99_us.push_back(static_cast<double>(status.commit_to_ack_p99_us));
    kind.publish_p99_us.push_back(static_cast<double>(status.publish_to_ack_p99_us));
    ++kind.slices_this_round;
}

// One slice: the kind's load on, alarms at args.rate for args.slice_ms into
// the kind's store, the load off and settled.
void run_slice(Kind& kind, const testing::Mosquitto& broker, const testing::TempDir& dir,
               const Args& args) {
    std::unique_ptr<Publisher> publisher = start_publisher(kind, broker, args);
    // Subscribed after the publisher connected, not before it:
    // subscribed first (and kept across publishers), paho 1.3.12 held every
    // PUBACK and message of this process about a second.
    DeliveryClock deliveries(broker.uri());
    std::unique_ptr<TelemetryGenerator> generator;
    std::unique_ptr<PahoTelemetrySource> paho;
    const uint64_t published_before = kind.lane ? kind.lane->stats().published : 0;
    if (kind.lane)
        generator = std::make_unique<TelemetryGenerator>(kind.socket_path, args.telemetry_rate);
    if (kind.paho) paho = std::make_unique<PahoTelemetrySource>(broker, dir, args.telemetry_rate);
    std::this_thread::sleep_for(kSettle);  // the load at its steady state

    Alarm alarm;
    alarm.alarm_type = "OVER_TEMPERATURE";
    alarm.severity = Severity::kCritical;
    alarm.unit = "degC";
    alarm.text = "bearing temperature above limit";
    const int count = std::max(1, args.rate * args.slice_ms / 1000);
    const auto interval = std::chrono::nanoseconds(1'000'000'000LL / args.rate);
    const uint64_t waited_before = alarm_side_runqueue_wait_ns();
    const auto start = Steady::now();
    for (int i = 0; i < count; ++i, ++kind.alarms) {
        std::this_thread::sleep_until(start + interval * i);
        alarm.device_id =
            "dev-" + std::to_string(kind.alarms % static_cast<uint64_t>(args.devices));
        alarm.value = 90.0 + static_cast<double>(kind.alarms % 10);
        const auto before = Steady::now();
        auto recorded = kind.store->record_alarm(alarm);
        const auto after = Steady::now();
        if (!recorded) {
            std::fprintf(stderr, "record: %s\n", recorded.status().to_string().c_str());
            std::exit(1);
        }
        kind.record_call_us.push_back(
            std::chrono::duration<double, std::micro>(after - before).count());
        deliveries.recorded(recorded->event_id, before);
    }
    finish_publisher(kind, *publisher, count);                    // under the same load
    const uint64_t waited_after = alarm_side_runqueue_wait_ns();  // its threads still live
    kind.runqueue_wait_ns += waited_after > waited_before ? waited_after - waited_before : 0;
    publisher->stop().ignore_error("the figures are taken; a slow stop does not change them");
    deliveries.latencies_us(kind.delivery_us);

    std::pair<uint64_t, double> sent{0, 0};
    if (generator) sent = generator->stop();
    if (paho) sent = paho->stop();
    kind.telemetry_sent += sent.first;
    kind.telemetry_seconds += sent.second;
    std::this_thread::sleep_for(kSettle);
    if (kind.lane) {
        // Reports come every 250 ms: wait for one that shows the ring empty.
        for (int i = 0; i < 400 && kind.lane->stats().ring_depth > 0; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        kind.lane_published += kind.lane->stats().published - published_before;
    }
}

// The alarm side's threads at nice -boost (Linux nice values are per thread;
// threads created later inherit their creator's).
void boost_this_process(int boost) {
    if (boost == 0) return;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
        const auto tid = static_cast<id_t>(std::stoul(task.path().filename().string()));
        if (::setpriority(PRIO_PROCESS, tid, -boost) != 0) {
            std::perror("setpriority (--alarm-nice-boost needs CAP_SYS_NICE)");
            std::exit(2);
        }
    }
}

double rounded(double value) {
    return std::round(value * 100) / 100;
}

double ratio(double loaded, double quiet) {
    return rounded(loaded / std::max(1.0, quiet));
}

// The distribution of `samples` (microseconds) at fixed fractions, for a
// plot of its cumulative distribution (scripts/performance).
nlohmann::json quantiles_us(const std::vector<double>& samples) {
    std::vector<double> fractions;
    for (int i = 0; i <= 20; ++i) fractions.push_back(i / 20.0);
    fractions.insert(fractions.end() - 1, {0.99, 0.999});
    nlohmann::json us = nlohmann::json::array();
    for (double fraction : fractions) us.push_back(std::lround(bench::percentile(samples, fraction)));
    return {{"fractions", fractions}, {"us", us}};
}

nlohmann::json disk_limit(const std::string& dir) {
    const std::vector<double> syncs = bench::disk_sync_ms(dir, 200);
    return {{"fsync_p50_us", std::lround(1000 * bench::percentile(syncs, 0.50))},
            {"fsync_p99_us", std::lround(1000 * bench::percentile(syncs, 0.99))}};
}

}  // namespace

int main(int argc, char** argv) {
    // Its bare paho clients (the round trip, the control's source) run
    // under the paho settings Outpost's clients get.
    paho::configure_process();
    Args args;
    if (!bench::parse_int_flags(argc, argv,
                                {{"--rate", &args.rate},
                                 {"--seconds", &args.seconds},
                                 {"--rounds", &args.rounds},
                                 {"--slice-ms", &args.slice_ms},
                                 {"--telemetry-rate", &args.telemetry_rate},
                                 {"--telemetry-cap", &args.telemetry_cap},
                                 {"--window", &args.window},
                                 {"--devices", &args.devices},
                                 {"--idle-lane", &args.idle_lane},
                                 {"--control", &args.control},
                                 {"--alarm-nice-boost", &args.alarm_nice_boost}},
                                0)) {
        return 2;
    }
    if (args.rate < 1 || args.seconds < 1 || args.rounds < 1 || args.slice_ms < 100 ||
        args.telemetry_rate < 1 || args.devices < 1) {
        std::fprintf(stderr,
                     "need --rate, --seconds, --rounds, --telemetry-rate, --devices >= 1 and "
                     "--slice-ms >= 100\n");
        return 2;
    }
    if (!testing::mosquitto_available() || testing::find_program("mosquitto_sub").empty()) {
        std::fprintf(stderr, "mosquitto and mosquitto_sub are needed\n");
        return 77;
    }
    const std::string load_at_start = load_average();
    testing::MosquittoConfig config;
    config.max_inflight_messages = args.window;
    testing::Mosquitto broker(config);
    testing::TempDir dir;

    std::vector<Kind> kinds;
    std::vector<std::unique_ptr<daemon::TelemetrySupervisor>> lanes;
    const auto add_kind = [&](const std::string& name) -> Kind& {
        kinds.emplace_back();
        kinds.back().name = name;
        return kinds.back();
    };
    // A lane kind: its own outpost-telemetry, named after the kind.
    const auto add_lane = [&](const std::string& name, const std::string& scheduling) {
        lanes.push_back(start_telemetry_process(broker, dir, args, name, scheduling));
        Kind& kind = add_kind(name);
        kind.lane = lanes.back().get();
        kind.socket_path = dir.file(name + ".sock");
    };
    add_kind("quiet");
    add_lane("lane", "nice");
    if (args.idle_lane != 0) add_lane("idle", "idle");
    if (args.control != 0) add_kind("paho").paho = true;
    std::vector<double> lane_cpu_before;
    for (const auto& lane : lanes)
        lane_cpu_before.push_back(bench::process_cpu_seconds(lane->pid()));
    TelemetryConsumer telemetry_consumer(broker, dir);
    boost_this_process(args.alarm_nice_boost);  // after the children above: not theirs

    constexpr int kRoundTrips = 2000;
    const nlohmann::json disk_before = disk_limit(dir.path());
    std::vector<double> round_trips = loopback_round_trips_us(broker, kRoundTrips);
    const int slices = std::max(1, (args.seconds * 1000 + args.slice_ms - 1) / args.slice_ms);
    for (int round = 1; round <= args.rounds; ++round) {
        for (Kind& kind : kinds) open_round(kind, round);
        for (int slice = 0; slice < slices; ++slice) {
            for (Kind& kind : kinds) run_slice(kind, broker, dir, args);
        }
        for (Kind& kind : kinds) std::printf("%s\n", close_round(kind, round).dump().c_str());
        std::fflush(stdout);
    }
    {
        const std::vector<double> more = loopback_round_trips_us(broker, kRoundTrips);
        round_trips.insert(round_trips.end(), more.begin(), more.end());
    }
    const nlohmann::json disk_after = disk_limit(dir.path());
    for (size_t i = 0; i < lanes.size(); ++i) {
        kinds[i + 1].lane_cpu_seconds =
            bench::process_cpu_seconds(lanes[i]->pid()) - lane_cpu_before[i];
    }
    std::vector<TelemetryStats> lane_stats;
    for (auto& lane : lanes) {
        lane->stop();
        lane_stats.push_back(lane->stats());
    }

    const Kind& quiet = kinds[0];
    const double quiet_p99 = bench::median(quiet.record_p99_us);
    const double quiet_publish_p99 = bench::median(quiet.publish_p99_us);
    const double quiet_call_p99 = bench::percentile(quiet.record_call_us, 0.99);
    const double quiet_delivery_p99 = bench::percentile(quiet.delivery_us, 0.99);
    nlohmann::json per_kind = nlohmann::json::object();
    for (size_t k = 0; k < kinds.size(); ++k) {
        const Kind& kind = kinds[k];
        const std::vector<double>& delivery = kind.delivery_us;
        const double p99 = bench::median(kind.record_p99_us);
        const double publish_p99 = bench::median(kind.publish_p99_us);
        const double call_p99 = bench::percentile(kind.record_call_us, 0.99);
        const double delivery_p99 = bench::percentile(delivery, 0.99);
        nlohmann::json figures{
            {"alarms", kind.alarms},
            {"drained", kind.drained},
            {"slices", kind.record_p99_us.size()},
            {"record_to_puback_p50_us_slice_median", bench::median(kind.record_p50_us)},
            {"record_to_puback_p99_us_slice_median", p99},
            {"publish_to_puback_p99_us_slice_median", publish_p99},
            {"record_call_p50_us", std::lround(bench::percentile(kind.record_call_us, 0.50))},
            {"record_call_p99_us", std::lround(call_p99)},
            {"record_to_delivery_p50_us", std::lround(bench::percentile(delivery, 0.50))},
            {"record_to_delivery_p99_us", std::lround(delivery_p99)},
            {"delivered_to_subscriber", delivery.size()},
            {"record_to_delivery_quantiles_us", quantiles_us(delivery)},
            {"record_call_quantiles_us", quantiles_us(kind.record_call_us)},
            {"alarm_side_runqueue_wait_us_per_alarm",
             rounded(static_cast<double>(kind.runqueue_wait_ns) / 1000 /
                     std::max<double>(1, static_cast<double>(kind.alarms)))}};
        if (k > 0) {
            figures.update(
                {{"ratio_record_to_puback_p99", ratio(p99, quiet_p99)},
                 {"ratio_publish_to_puback_p99", ratio(publish_p99, quiet_publish_p99)},
                 {"ratio_record_call_p99", ratio(call_p99, quiet_call_p99)},
                 {"ratio_record_to_delivery_p99", ratio(delivery_p99, quiet_delivery_p99)},
                 {"telemetry_sent_per_s", std::lround(static_cast<double>(kind.telemetry_sent) /
                                                      std::max(1e-9, kind.telemetry_seconds))}});
        }
        if (kind.lane != nullptr) {
            const TelemetryStats& stats = lane_stats[k - 1];
            figures.update(
                {{"lane_published", stats.published},
                 {"lane_published_per_s", std::lround(static_cast<double>(kind.lane_published) /
                                                      std::max(1e-9, kind.telemetry_seconds))},
                 {"lane_dropped_ring_full", stats.dropped_ring_full},
                 {"lane_dropped_other",
                  stats.dropped_disconnected + stats.dropped_invalid + stats.dropped_oversize},
                 {"lane_process_restarts", kind.lane->restarts()},
                 {"lane_cpu_us_per_published",
                  std::lround(1e6 * kind.lane_cpu_seconds /
                              std::max<double>(1, static_cast<double>(stats.published)))}});
        }
        per_kind[kind.name] = figures;
    }
    nlohmann::json verdict{
        {"scenario", "telemetry_vs_alarms"},
        {"rounds", args.rounds},
        {"slice_ms", args.slice_ms},
        {"slices_per_kind_and_round", slices},
        {"alarm_rate_per_s", args.rate},
        {"telemetry_target_per_s", args.telemetry_rate},
        {"telemetry_send_cap_per_s", args.telemetry_cap},
        {"alarm_nice_boost", args.alarm_nice_boost},
        {"load_average_start", load_at_start},
        {"load_average_end", load_average()},
        {"disk_before", disk_before},
        {"disk_after", disk_after},
        {"loopback_qos1_round_trip_p50_us", std::lround(bench::percentile(round_trips, 0.50))},
        {"loopback_qos1_round_trip_p99_us", std::lround(bench::percentile(round_trips, 0.99))},
        {"quiet_record_to_puback_p99_us_slice_median", quiet_p99},
        {"quiet_record_call_p99_us", std::lround(quiet_call_p99)},
        {"quiet_record_to_delivery_p99_us", std::lround(quiet_delivery_p99)},
        {"target_ratio_publisher", 1.2},
        {"target_ratio_subscriber", 1.1},
        {"telemetry_received_by_subscriber", telemetry_consumer.received()},
        {"kinds", per_kind}};
    std::printf("%s\n", verdict.dump().c_str());
    return 0;
}
