// Telemetry must never delay an alarm (DESIGN.md promise 6). Against one
// mosquitto this program starts itself on loopback, in one run:
//   quiet   alarms at a steady rate through a Store (a real file) and the
//           Publisher, no telemetry: record->PUBACK p50/p99;
//   loaded  the same, with a fresh store, while a TelemetryLane sends
//           --telemetry-rate messages/s (a generator thread calling offer(),
//           and --datagram-percent of them through the datagram socket from a
//           second thread), and mosquitto_sub drains the telemetry topics.
// The lane runs from start to end (idle in quiet phases, as on a gateway).
// Phases alternate, quiet then loaded, for --rounds rounds, so that load
// from other processes on a shared box hits both alike. Prints one JSON line
// per phase, then the verdict: ratio = median loaded p99 / median quiet p99
// of the publisher's record->PUBACK (target <= 1.5), the same ratio over all
// samples of an independent subscriber's microsecond clock, and the lane's
// counters.
//
// Usage: telemetry_bench [--rate=200] [--seconds=10] [--rounds=3]
//                        [--telemetry-rate=5000] [--telemetry-cap=5000]
//                        [--datagram-percent=20]
//                        [--window=20] [--devices=16]
#include <mqtt/async_client.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.h"
#include "mosquitto_fixture.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "outpost/telemetry.h"
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
    int datagram_percent = 20;
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

// When each alarm reached a subscriber, by eventId: a second, finer clock
// (microseconds) next to the publisher's millisecond record->PUBACK figure.
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

// Offers `per_second` messages, paced per millisecond, until `stop`; the
// first `datagram_percent` of every hundred go through the socket instead.
class TelemetryGenerator final {
  public:
    TelemetryGenerator(TelemetryLane& lane, std::string socket_path, int per_second,
                       int datagram_percent)
        : lane_(lane), socket_path_(std::move(socket_path)) {
        const int by_socket = per_second * datagram_percent / 100;
        offer_thread_ = std::thread([this, per_second, by_socket] {
            pace(per_second - by_socket, [this](uint64_t n) {
                lane_.offer(sensor_key(n), sensor_payload(n));
                ++offered_;
            });
        });
        if (by_socket > 0) {
            datagram_thread_ = std::thread([this, by_socket] {
                pace(by_socket, [this](uint64_t n) {
                    testing::send_datagram(socket_path_, sensor_key(n) + "\n" + sensor_payload(n));
                    ++sent_datagrams_;
                });
            });
        }
    }
    ~TelemetryGenerator() { stop(); }

    // Returns the rate achieved (messages/s over both paths).
    double stop() {
        stopping_ = true;
        if (offer_thread_.joinable()) offer_thread_.join();
        if (datagram_thread_.joinable()) datagram_thread_.join();
        const double elapsed = std::chrono::duration<double>(Steady::now() - start_).count();
        return static_cast<double>(offered_ + sent_datagrams_) / elapsed;
    }
    uint64_t offered() const { return offered_; }
    uint64_t sent_datagrams() const { return sent_datagrams_; }

  private:
    template <typename Send>
    void pace(int per_second, Send send) {
        uint64_t n = 0;
        for (int64_t tick = 0; !stopping_; ++tick) {
            std::this_thread::sleep_until(start_ + std::chrono::milliseconds(tick));
            // Due by the end of this millisecond: keeps the rate exact at any per_second.
            const auto due = static_cast<uint64_t>((tick + 1) * per_second / 1000);
            while (n < due) send(n++);
        }
    }

    TelemetryLane& lane_;
    const std::string socket_path_;
    const Steady::time_point start_ = Steady::now();
    std::atomic<bool> stopping_{false};
    std::atomic<uint64_t> offered_{0}, sent_datagrams_{0};
    std::thread offer_thread_, datagram_thread_;
};

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
    return {{"phase", phase},
            {"round", round},
            {"alarms", run.alarms},
            {"target_rate_per_s", args.rate},
            {"achieved_rate_per_s", std::lround(run.achieved_per_s)},
            {"drained", run.drained},
            {"record_to_puback_p50_ms", run.status.commit_to_ack_p50_ms},
            {"record_to_puback_p99_ms", run.status.commit_to_ack_p99_ms},
            {"publish_to_puback_p99_ms", run.status.publish_to_ack_p99_ms},
            {"delivered_to_subscriber", run.delivery_ms.size()},
            {"record_to_delivery_p50_ms", rounded(bench::percentile(run.delivery_ms, 0.50))},
            {"record_to_delivery_p99_ms", rounded(bench::percentile(run.delivery_ms, 0.99))}};
}

// Everything the loaded phases add up to.
struct Totals {
    std::vector<double> quiet_p99_ms, loaded_p99_ms;            // publisher's, one per round
    std::vector<double> quiet_delivery_ms, loaded_delivery_ms;  // all samples
    double telemetry_per_s = 0;  // the lowest achieved rate of the rounds
};

void append(std::vector<double>& to, const std::vector<double>& from) {
    to.insert(to.end(), from.begin(), from.end());
}

nlohmann::json loaded_phase(const testing::Mosquitto& broker, const Args& args, int round,
                            TelemetryLane& lane, const std::string& socket_path, Totals& totals) {
    const TelemetryStats before = lane.stats();
    TelemetryGenerator generator(lane, socket_path, args.telemetry_rate, args.datagram_percent);
    const AlarmRun run = run_alarms(broker, args, "loaded-" + std::to_string(round));
    const double telemetry_rate = generator.stop();
    totals.loaded_p99_ms.push_back(static_cast<double>(run.status.commit_to_ack_p99_ms));
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

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!bench::parse_int_flags(argc, argv,
                                {{"--rate", &args.rate},
                                 {"--seconds", &args.seconds},
                                 {"--rounds", &args.rounds},
                                 {"--telemetry-rate", &args.telemetry_rate},
                                 {"--telemetry-cap", &args.telemetry_cap},
                                 {"--datagram-percent", &args.datagram_percent},
                                 {"--window", &args.window},
                                 {"--devices", &args.devices}},
                                0)) {
        return 2;
    }
    if (args.rate < 1 || args.seconds < 1 || args.rounds < 1 || args.datagram_percent > 100) {
        std::fprintf(stderr,
                     "need --rate, --seconds and --rounds >= 1 and --datagram-percent <= 100\n");
        return 2;
    }
    if (!testing::mosquitto_available()) {
        std::fprintf(stderr, "mosquitto is not installed\n");
        return 77;
    }
    testing::MosquittoConfig config;
    config.max_inflight_messages = args.window;
    testing::Mosquitto broker(config);

    testing::TempDir dir;
    TelemetryOptions lane_options;
    lane_options.gateway_id = "gw-bench";
    lane_options.broker_uri = broker.uri();
    lane_options.datagram_socket = dir.file("telemetry.sock");
    lane_options.max_send_rate = static_cast<uint32_t>(args.telemetry_cap);
    auto lane = TelemetryLane::start(lane_options);
    if (!lane) {
        std::fprintf(stderr, "telemetry: %s\n", lane.status().to_string().c_str());
        return 1;
    }
    while (!(*lane)->stats().connected) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (testing::find_program("mosquitto_sub").empty()) {
        std::fprintf(stderr, "mosquitto_sub is not installed\n");
        return 77;
    }
    TelemetryConsumer telemetry_consumer(broker, dir);

    Totals totals;
    for (int round = 1; round <= args.rounds; ++round) {
        const AlarmRun quiet = run_alarms(broker, args, "quiet-" + std::to_string(round));
        totals.quiet_p99_ms.push_back(static_cast<double>(quiet.status.commit_to_ack_p99_ms));
        append(totals.quiet_delivery_ms, quiet.delivery_ms);
        std::printf("%s\n", alarm_figures("quiet", round, quiet, args).dump().c_str());
        std::fflush(stdout);
        const nlohmann::json loaded =
            loaded_phase(broker, args, round, **lane, lane_options.datagram_socket, totals);
        std::printf("%s\n", loaded.dump().c_str());
        std::fflush(stdout);
    }
    // Let the ring empty before reading the counters.
    for (int i = 0; i < 500 && (*lane)->stats().ring_depth > 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    (*lane)->stop();
    const TelemetryStats stats = (*lane)->stats();

    // The publisher's figure has 1 ms steps; the delivery clock has microseconds.
    const double quiet_p99 = bench::median(totals.quiet_p99_ms);
    const double loaded_p99 = bench::median(totals.loaded_p99_ms);
    const double quiet_delivery_p99 = bench::percentile(totals.quiet_delivery_ms, 0.99);
    const double loaded_delivery_p99 = bench::percentile(totals.loaded_delivery_ms, 0.99);
    nlohmann::json verdict{
        {"scenario", "telemetry_vs_alarms"},
        {"rounds", args.rounds},
        {"alarm_rate_per_s", args.rate},
        {"telemetry_target_per_s", args.telemetry_rate},
        {"telemetry_send_cap_per_s", args.telemetry_cap},
        {"telemetry_achieved_per_s_min", std::lround(totals.telemetry_per_s)},
        {"record_to_puback_p99_quiet_ms_median", quiet_p99},
        {"record_to_puback_p99_loaded_ms_median", loaded_p99},
        {"ratio_p99_loaded_to_quiet", rounded(loaded_p99 / std::max(1.0, quiet_p99))},
        {"record_to_delivery_p50_quiet_ms", rounded(bench::median(totals.quiet_delivery_ms))},
        {"record_to_delivery_p50_loaded_ms", rounded(bench::median(totals.loaded_delivery_ms))},
        {"record_to_delivery_p99_quiet_ms", rounded(quiet_delivery_p99)},
        {"record_to_delivery_p99_loaded_ms", rounded(loaded_delivery_p99)},
        {"ratio_delivery_p99_loaded_to_quiet",
         rounded(loaded_delivery_p99 / std::max(0.001, quiet_delivery_p99))},
        {"target_ratio", 1.5},
        {"telemetry_offered", stats.offered},
        {"telemetry_datagrams", stats.datagrams},
        {"telemetry_published", stats.published},
        {"telemetry_received_by_subscriber", telemetry_consumer.received()},
        {"telemetry_coalesced", stats.coalesced},
        {"telemetry_dropped_ring_full", stats.dropped_ring_full},
        {"telemetry_dropped_disconnected", stats.dropped_disconnected},
        {"telemetry_dropped_invalid", stats.dropped_invalid},
        {"telemetry_dropped_oversize", stats.dropped_oversize}};
    std::printf("%s\n", verdict.dump().c_str());
    return 0;
}
