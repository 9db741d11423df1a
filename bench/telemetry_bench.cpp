// Telemetry must never delay an alarm (DESIGN.md promise 6). Against one
// mosquitto this program starts itself on loopback, in one run:
//   quiet   alarms at a steady rate through a Store (a real file) and the
//           Publisher, no telemetry: record->PUBACK p50/p99;
//   loaded  the same, with a fresh store, while firmware (a generator
//           thread) sends --telemetry-rate datagrams/s to the telemetry
//           socket, and mosquitto_sub drains the telemetry topics.
// Telemetry runs as outpostd runs it: outpost-telemetry in its own process
// (its own paho and I/O threads, nice 10), started by the daemon's
// TelemetrySupervisor, from start to end (idle in quiet phases, as on a
// gateway). Phases alternate, quiet then loaded, for --rounds rounds, so
// that load from other processes on a shared box hits both alike. The limit:
// the loopback MQTT round trip (a bare paho client, QoS 1 publish to PUBACK,
// one at a time) before the first and after the last round. Prints one JSON
// line per phase, then the verdict, in microseconds: ratio = median loaded
// p99 / median quiet p99 of the publisher's record->PUBACK (target <= 1.2),
// the same ratio over all samples of an independent subscriber's clock
// (target <= 1.1), and the lane's counters.
//
// Usage: telemetry_bench [--rate=200] [--seconds=10] [--rounds=3]
//                        [--telemetry-rate=5000] [--telemetry-cap=5000]
//                        [--window=20] [--devices=16]
#include <mqtt/async_client.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
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
#include "temp_dir.h"
#include "unix_datagram.h"

using namespace outpost;
using Steady = std::chrono::steady_clock;

namespace {

struct Args {
    int rate = 200;
    int seconds = 10;
    int rounds = 3;
    int telemetry_rate = 5000;
    int telemetry_cap = 5000;  // TelemetryOptions::max_send_rate; 0: none
    int window = 20;
    int devices = 16;
};

// Telemetry the way a gateway produces it: many sensors, small JSON values.
constexpr int kSensors = 64;

std::string sensor_key(uint64_t n) {
    return "sensor-" + std::to_string(n % kSensors) + "/value";
}

std::string sensor_payload(uint64_t n) {
    return "{\"v\":" + std::to_string(20.0 + static_cast<double>(n % 100) / 10) +
           ",\"n\":" + std::to_string(n) + "}";
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
    DeliveryClock(const std::string& uri, const std::string& name)
        : subscriber_(uri, "bench-alarm-watch-" + name, "outpost/gw-bench/alarm/#", 1,
                      [this](const mqtt::const_message_ptr& message) { arrived(message); }) {}

    void recorded(const std::string& event_id, Steady::time_point before) {
        std::lock_guard<std::mutex> lock(mutex_);
        recorded_[event_id] = before;
    }

    // Milliseconds from the start of record_alarm() to arrival, per alarm.
    std::vector<double> latencies_ms() const {
        std::lock_guard<std::mutex> lock(mutex_);
        std::vector<double> out;
        for (const auto& [id, before] : recorded_) {
            auto arrival = arrived_.find(id);
            if (arrival == arrived_.end()) continue;
            out.push_back(
                std::chrono::duration<double, std::milli>(arrival->second - before).count());
        }
        return out;
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
            uint64_t n = 0;
            for (int64_t tick = 0; !stopping_; ++tick) {
                std::this_thread::sleep_until(start_ + std::chrono::milliseconds(tick));
                // Due by the end of this millisecond: keeps the rate exact at any per_second.
                const auto due = static_cast<uint64_t>((tick + 1) * per_second / 1000);
                for (; n < due; ++n) {
                    if (testing::send_datagram(socket_path_,
                                               sensor_key(n) + "\n" + sensor_payload(n))) {
                        ++sent_;
                    }
                }
            }
        });
    }
    ~TelemetryGenerator() { stop(); }

    // Returns the rate achieved (datagrams/s).
    double stop() {
        stopping_ = true;
        if (thread_.joinable()) thread_.join();
        const double elapsed = std::chrono::duration<double>(Steady::now() - start_).count();
        return static_cast<double>(sent_) / elapsed;
    }

  private:
    const std::string socket_path_;
    const Steady::time_point start_ = Steady::now();
    std::atomic<bool> stopping_{false};
    std::atomic<uint64_t> sent_{0};
    std::thread thread_;
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

struct AlarmRun {
    int alarms = 0;
    double achieved_per_s = 0;
    bool drained = false;
    PublisherStatus status;
    std::vector<double> delivery_ms;  // record_alarm() start -> subscriber, per alarm
};

// A fresh store and publisher; alarms at args.rate for args.seconds, then
// waits until all are SENT. `during` runs once the publisher is connected.
AlarmRun run_alarms(const testing::Mosquitto& broker, const Args& args, const std::string& name) {
    testing::TempDir dir;
    StoreOptions store_options;
    store_options.gateway_id = "gw-bench";
    auto store = Store::open(dir.file(name + ".db"), store_options);
    if (!store) {
        std::fprintf(stderr, "store: %s\n", store.status().to_string().c_str());
        std::exit(1);
    }
    PublisherOptions options;
    options.broker_uri = broker.uri();
    options.client_id = "bench-publisher-" + name;
    options.max_in_flight = args.window;
    auto publisher = Publisher::start(**store, options);
    if (!publisher) std::exit(1);
    while (!(*publisher)->status().connected)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    DeliveryClock deliveries(broker.uri(), name);

    AlarmRun run;
    run.alarms = args.rate * args.seconds;
    const auto interval = std::chrono::nanoseconds(1'000'000'000LL / args.rate);
    Alarm alarm;
    alarm.alarm_type = "OVER_TEMPERATURE";
    alarm.severity = Severity::kCritical;
    alarm.unit = "degC";
    alarm.text = "bearing temperature above limit";
    const auto start = Steady::now();
    for (int i = 0; i < run.alarms; ++i) {
        std::this_thread::sleep_until(start + interval * i);
        alarm.device_id = "dev-" + std::to_string(i % args.devices);
        alarm.value = 90.0 + i % 10;
        const auto before = Steady::now();
        auto recorded = (*store)->record_alarm(alarm);
        if (!recorded) {
            std::fprintf(stderr, "record: %s\n", recorded.status().to_string().c_str());
            std::exit(1);
        }
        deliveries.recorded(recorded->event_id, before);
    }
    run.achieved_per_s = run.alarms / std::chrono::duration<double>(Steady::now() - start).count();
    const auto deadline = Steady::now() + std::chrono::seconds(60);
    while ((*publisher)->status().sent < static_cast<uint64_t>(run.alarms) &&
           Steady::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    run.status = (*publisher)->status();
    run.drained = run.status.sent >= static_cast<uint64_t>(run.alarms);
    (*publisher)->stop().ignore_error("the figures are taken; a slow stop does not change them");
    run.delivery_ms = deliveries.latencies_ms();
    return run;
}

double rounded(double value) {
    return std::round(value * 100) / 100;
}

nlohmann::json alarm_figures(const char* phase, int round, const AlarmRun& run, const Args& args) {
    return {
        {"phase", phase},
        {"round", round},
        {"alarms", run.alarms},
        {"target_rate_per_s", args.rate},
        {"achieved_rate_per_s", std::lround(run.achieved_per_s)},
        {"drained", run.drained},
        {"record_to_puback_p50_us", run.status.commit_to_ack_p50_us},
        {"record_to_puback_p99_us", run.status.commit_to_ack_p99_us},
        {"publish_to_puback_p99_us", run.status.publish_to_ack_p99_us},
        {"delivered_to_subscriber", run.delivery_ms.size()},
        {"record_to_delivery_p50_us", std::lround(1000 * bench::percentile(run.delivery_ms, 0.50))},
        {"record_to_delivery_p99_us",
         std::lround(1000 * bench::percentile(run.delivery_ms, 0.99))}};
}

// Everything the loaded phases add up to.
struct Totals {
    std::vector<double> quiet_p99_us, loaded_p99_us;                  // publisher's, one per round
    std::vector<double> quiet_publish_p99_us, loaded_publish_p99_us;  // publish->PUBACK
    std::vector<double> quiet_delivery_ms, loaded_delivery_ms;        // all samples
    double telemetry_per_s = 0;  // the lowest achieved rate of the rounds
};

void append(std::vector<double>& to, const std::vector<double>& from) {
    to.insert(to.end(), from.begin(), from.end());
}

nlohmann::json loaded_phase(const testing::Mosquitto& broker, const Args& args, int round,
                            const daemon::TelemetrySupervisor& lane, const std::string& socket_path,
                            Totals& totals) {
    const TelemetryStats before = lane.stats();
    TelemetryGenerator generator(socket_path, args.telemetry_rate);
    const AlarmRun run = run_alarms(broker, args, "loaded-" + std::to_string(round));
    const double telemetry_rate = generator.stop();
    totals.loaded_p99_us.push_back(static_cast<double>(run.status.commit_to_ack_p99_us));
    totals.loaded_publish_p99_us.push_back(static_cast<double>(run.status.publish_to_ack_p99_us));
    append(totals.loaded_delivery_ms, run.delivery_ms);
    totals.telemetry_per_s =
        round == 1 ? telemetry_rate : std::min(totals.telemetry_per_s, telemetry_rate);
    const TelemetryStats after = lane.stats();
    nlohmann::json figures = alarm_figures("loaded", round, run, args);
    figures.update({{"telemetry_achieved_per_s", std::lround(telemetry_rate)},
                    {"telemetry_offered", after.offered - before.offered},
                    {"telemetry_published", after.published - before.published},
                    {"telemetry_ring_depth_at_end", after.ring_depth}});
    return figures;
}

// The telemetry process as outpostd starts it, from a configuration file
// with only what it reads.
std::unique_ptr<daemon::TelemetrySupervisor> start_telemetry_process(
    const testing::Mosquitto& broker, const testing::TempDir& dir, const Args& args,
    const std::string& socket_path) {
    const std::string config_path = dir.file("telemetry.json");
    const nlohmann::json config = {
        {"gateway_id", "gw-bench"},
        {"database", {{"path", dir.file("unused.db")}}},  // required, never opened
        {"broker", {{"uri", broker.uri()}}},
        {"telemetry", {{"datagram_socket", socket_path}, {"max_send_rate", args.telemetry_cap}}},
        {"logging", {{"level", "warn"}}}};
    std::ofstream(config_path) << config.dump();
    daemon::TelemetrySupervisorOptions options;
    options.command = {OUTPOST_TELEMETRY_PROGRAM, "--config", config_path};
    auto supervisor = daemon::TelemetrySupervisor::start(options);
    if (!supervisor) {
        std::fprintf(stderr, "telemetry process: %s\n", supervisor.status().to_string().c_str());
        std::exit(1);
    }
    return std::move(*supervisor);
}

double ratio(double loaded, double quiet) {
    return rounded(loaded / std::max(1.0, quiet));
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!bench::parse_int_flags(argc, argv,
                                {{"--rate", &args.rate},
                                 {"--seconds", &args.seconds},
                                 {"--rounds", &args.rounds},
                                 {"--telemetry-rate", &args.telemetry_rate},
                                 {"--telemetry-cap", &args.telemetry_cap},
                                 {"--window", &args.window},
                                 {"--devices", &args.devices}},
                                0)) {
        return 2;
    }
    if (args.rate < 1 || args.seconds < 1 || args.rounds < 1) {
        std::fprintf(stderr, "need --rate, --seconds and --rounds >= 1\n");
        return 2;
    }
    if (!testing::mosquitto_available() || testing::find_program("mosquitto_sub").empty()) {
        std::fprintf(stderr, "mosquitto and mosquitto_sub are needed\n");
        return 77;
    }
    testing::MosquittoConfig config;
    config.max_inflight_messages = args.window;
    testing::Mosquitto broker(config);

    testing::TempDir dir;
    const std::string socket_path = dir.file("telemetry.sock");
    auto lane = start_telemetry_process(broker, dir, args, socket_path);
    while (!lane->stats().connected) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    TelemetryConsumer telemetry_consumer(broker, dir);

    constexpr int kRoundTrips = 2000;
    std::vector<double> round_trips = loopback_round_trips_us(broker, kRoundTrips);
    Totals totals;
    for (int round = 1; round <= args.rounds; ++round) {
        const AlarmRun quiet = run_alarms(broker, args, "quiet-" + std::to_string(round));
        totals.quiet_p99_us.push_back(static_cast<double>(quiet.status.commit_to_ack_p99_us));
        totals.quiet_publish_p99_us.push_back(
            static_cast<double>(quiet.status.publish_to_ack_p99_us));
        append(totals.quiet_delivery_ms, quiet.delivery_ms);
        std::printf("%s\n", alarm_figures("quiet", round, quiet, args).dump().c_str());
        std::fflush(stdout);
        const nlohmann::json loaded = loaded_phase(broker, args, round, *lane, socket_path, totals);
        std::printf("%s\n", loaded.dump().c_str());
        std::fflush(stdout);
    }
    append(round_trips, loopback_round_trips_us(broker, kRoundTrips));
    // Let the ring empty before reading the counters.
    for (int i = 0; i < 500 && lane->stats().ring_depth > 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    lane->stop();
    const TelemetryStats stats = lane->stats();

    const double quiet_p99 = bench::median(totals.quiet_p99_us);
    const double loaded_p99 = bench::median(totals.loaded_p99_us);
    const double quiet_publish_p99 = bench::median(totals.quiet_publish_p99_us);
    const double loaded_publish_p99 = bench::median(totals.loaded_publish_p99_us);
    const double quiet_delivery_p99 = 1000 * bench::percentile(totals.quiet_delivery_ms, 0.99);
    const double loaded_delivery_p99 = 1000 * bench::percentile(totals.loaded_delivery_ms, 0.99);
    nlohmann::json verdict{
        {"scenario", "telemetry_vs_alarms"},
        {"telemetry", "own process (outpost-telemetry, nice 10)"},
        {"rounds", args.rounds},
        {"alarm_rate_per_s", args.rate},
        {"telemetry_target_per_s", args.telemetry_rate},
        {"telemetry_send_cap_per_s", args.telemetry_cap},
        {"telemetry_achieved_per_s_min", std::lround(totals.telemetry_per_s)},
        {"loopback_qos1_round_trip_p50_us", std::lround(bench::percentile(round_trips, 0.50))},
        {"loopback_qos1_round_trip_p99_us", std::lround(bench::percentile(round_trips, 0.99))},
        {"record_to_puback_p99_quiet_us_median", quiet_p99},
        {"record_to_puback_p99_loaded_us_median", loaded_p99},
        {"ratio_p99_loaded_to_quiet", ratio(loaded_p99, quiet_p99)},
        {"publish_to_puback_p99_quiet_us_median", quiet_publish_p99},
        {"publish_to_puback_p99_loaded_us_median", loaded_publish_p99},
        {"ratio_publish_p99_loaded_to_quiet", ratio(loaded_publish_p99, quiet_publish_p99)},
        {"record_to_delivery_p50_quiet_us",
         std::lround(1000 * bench::median(totals.quiet_delivery_ms))},
        {"record_to_delivery_p50_loaded_us",
         std::lround(1000 * bench::median(totals.loaded_delivery_ms))},
        {"record_to_delivery_p99_quiet_us", std::lround(quiet_delivery_p99)},
        {"record_to_delivery_p99_loaded_us", std::lround(loaded_delivery_p99)},
        {"ratio_delivery_p99_loaded_to_quiet", ratio(loaded_delivery_p99, quiet_delivery_p99)},
        {"target_ratio_publisher", 1.2},
        {"target_ratio_subscriber", 1.1},
        {"telemetry_offered", stats.offered},
        {"telemetry_datagrams", stats.datagrams},
        {"telemetry_published", stats.published},
        {"telemetry_received_by_subscriber", telemetry_consumer.received()},
        {"telemetry_coalesced", stats.coalesced},
        {"telemetry_dropped_ring_full", stats.dropped_ring_full},
        {"telemetry_dropped_disconnected", stats.dropped_disconnected},
        {"telemetry_dropped_invalid", stats.dropped_invalid},
        {"telemetry_dropped_oversize", stats.dropped_oversize},
        {"telemetry_process_restarts", lane->restarts()}};
    std::printf("%s\n", verdict.dump().c_str());
    return 0;
}
