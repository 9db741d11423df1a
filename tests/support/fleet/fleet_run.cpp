#include "fleet_run.h"

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <regex>
#include <stdexcept>
#include <thread>

#include "child_process.h"
#include "cpu_sampler.h"
#include "ledger.h"
#include "mosquitto_fixture.h"
#include "outpost/publisher_options.h"
#include "outpost_gateway.h"
#include "process_cpu.h"
#include "raw_gateway.h"
#include "rocketmq/admin.h"
#include "temp_dir.h"

namespace outpost::fleet {

const char* restart_name(Restart restart) {
    return restart == Restart::kGraceful ? "graceful" : "kill";
}

namespace {

using std::chrono::milliseconds;

double seconds_since(Steady::time_point start) {
    return std::chrono::duration<double>(Steady::now() - start).count();
}

double round1(double value) {
    return std::round(value * 10) / 10;
}

std::string seconds_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", value);
    return text;
}

nlohmann::json read_json(const std::string& path) {
    std::ifstream file(path);
    nlohmann::json parsed = nlohmann::json::parse(file, nullptr, false);
    return parsed.is_object() ? parsed : nlohmann::json::object();
}

// A point in time with every counter a window needs.
struct Mark {
    Steady::time_point at;
    double bridge_cpu = 0, broker_cpu = 0, fleet_cpu = 0;
    uint64_t forwarded = 0;
};

class Fleet final {
  public:
    explicit Fleet(const FleetOptions& options)
        : options_(options), ledger_(options.gateways), random_(options.seed) {}

    FleetReport run();

  private:
    void say(const std::string& line) {
        if (options_.progress) options_.progress(line);
    }
    Mark mark() {
        Mark m;
        m.at = Steady::now();
        m.bridge_cpu = cpu_.seconds("bridge");
        m.broker_cpu = cpu_.seconds("broker");
        m.fleet_cpu = cpu_.seconds("fleet");
        m.forwarded = read_json(status_path_).value("forwarded", 0ull);
        return m;
    }
    static double per_msg(double cpu_seconds, uint64_t messages) {
        return std::round(cpu_seconds * 1e6 / static_cast<double>(std::max<uint64_t>(1, messages)));
    }
    void start_broker();
    void start_bridge();
    void start_gateways();
    // Runs until stop_: each round `round(now)`, then for every gateway its
    // alarms when due and `step(gateway, now)`; `pause` between rounds.
    template <typename Gateway, typename Round, typename Step>
    void drive(std::vector<std::unique_ptr<Gateway>>& gateways, milliseconds pause, Round round,
               Step step);
    void drive_raw();
    void drive_outpost();
    Steady::duration next_pause(bool first);
    int alarms_per_tick(int gateway) const {
        return bursting_[gateway] ? options_.burst_size : 1;
    }
    bool all_connected();
    // Waits until `done` or `limit` seconds; returns the seconds it took, -1 if not.
    double wait_for(const std::function<bool()>& done, double limit);
    void restart(Restart kind, FleetReport& report);
    void check_losses(FleetReport& report);

    const FleetOptions options_;
    Ledger ledger_;
    CpuSampler cpu_;
    testing::TempDir dir_;
    testing::TempDir stores_{testing::TempDir::Base::kPreferTmpfs};
    std::unique_ptr<testing::Mosquitto> broker_;
    pid_t bridge_pid_ = -1;
    std::string status_path_;
    std::mt19937_64 random_;  // driver threads draw under random_mutex_
    std::mutex random_mutex_;
    std::vector<bool> bursting_;
    std::vector<bool> outpost_;
    // index -> gateway; one of the two per index
    std::vector<std::unique_ptr<RawGateway>> raw_;
    std::vector<std::unique_ptr<OutpostGateway>> outposts_;
    std::atomic<bool> raising_{false};
    std::atomic<bool> stop_{false};
};

Steady::duration Fleet::next_pause(bool first) {
    std::lock_guard<std::mutex> lock(random_mutex_);
    // The first alarm anywhere in one interval; later ones 0.5 to 1.5 intervals apart.
    std::uniform_real_distribution<double> draw(first ? 0.0 : 0.5, first ? 1.0 : 1.5);
    return std::chrono::duration_cast<Steady::duration>(
        std::chrono::duration<double>(options_.interval_s * draw(random_)));
}

void Fleet::start_broker() {
    testing::MosquittoConfig config;
    // As deploy/mosquitto/outpost.conf.in: persistence saved every 60 s
    // and at a clean shutdown, its per-client limits, its logging.
    config.persistence = true;
    config.log_all = false;
    config.max_inflight_messages = 100;
    config.max_queued_messages = 100000;
    config.extra = "autosave_interval 60\nmax_queued_bytes 268435456\n";
    broker_ = std::make_unique<testing::Mosquitto>(config);
    cpu_.track("broker", broker_->pid());
}

void Fleet::start_bridge() {
    rocketmq::TopicSpec spec;
    spec.read_queue_count = spec.write_queue_count = 8;
    for (const std::string& name : {options_.topic, options_.topic + "_q"}) {
        spec.name = name;
        const Status created =
            rocketmq::create_topic(options_.rocketmq_broker, spec, milliseconds(10000));
        if (!created.is_ok()) throw std::runtime_error("create topic: " + created.to_string());
        const Status routed =
            rocketmq::wait_for_topic_route(options_.name_servers, name, milliseconds(30000));
        if (!routed.is_ok()) throw std::runtime_error("topic route: " + routed.to_string());
    }
    status_path_ = dir_.file("bridge-status.json");
    nlohmann::json config = {
        {"mqtt",
         {{"uri", broker_->uri()},
          {"client_id", "fleet-bridge"},
          {"shared_group", "fleet"},
          {"sessions", options_.bridge_sessions},
          {"retired_sessions", 0}}},
        {"rocketmq",
         {{"name_servers", options_.name_servers}, {"producer_group", "outpost_fleet"}}},
        {"mapping", nlohmann::json::array({{{"mqtt_filter", "outpost/+/alarm/+"},
                                            {"rocketmq_topic", options_.topic},
                                            {"tag", "${payload.severity}"}}})},
        {"quarantine_topic", options_.topic + "_q"},
        {"receipts", {{"enabled", true}}},
        {"status", {{"file", status_path_}, {"interval_ms", 200}, {"log_to_stderr", false}}}};
    if (options_.bridge_reconnect_max_ms > 0) {
        config["mqtt"]["reconnect_max_ms"] = options_.bridge_reconnect_max_ms;
    }
    if (options_.bridge_batch > 0) config["batch"] = {{"max_messages", options_.bridge_batch}};
    std::ofstream(dir_.file("bridge.json")) << config.dump(2);
    bridge_pid_ = testing::spawn_logged(
        {options_.bridge_binary, "--config", dir_.file("bridge.json")}, dir_.file("bridge.log"));
    if (wait_for([&] { return read_json(status_path_).value("mqtt_connected", false); }, 60) < 0) {
        throw std::runtime_error("outpost-bridge did not connect:\n" +
                                 testing::tail_of(testing::read_file(dir_.file("bridge.log")), 20));
    }
    cpu_.track("bridge", bridge_pid_);
    for (pid_t child : bench::child_processes(bridge_pid_)) cpu_.track("bridge", child);
}

void Fleet::start_gateways() {
    const PublisherOptions defaults;
    const MqttEndpoint endpoint;
    const milliseconds receipt_timeout = options_.receipt_timeout_ms > 0
                                             ? milliseconds(options_.receipt_timeout_ms)
                                             : defaults.receipt_timeout;
    raw_.resize(options_.gateways);
    outposts_.resize(options_.gateways);
    // Outpost gateways spread evenly (gateway i is one when the running
    // share steps up at i); bursting ones drawn at random, of both kinds.
    std::vector<int> order(options_.gateways);
    for (int i = 0; i < options_.gateways; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), random_);
    bursting_.assign(options_.gateways, false);
    const auto bursting =
        static_cast<int>(std::lround(options_.burst_fraction * options_.gateways));
    for (int k = 0; k < std::min(bursting, options_.gateways); ++k) bursting_[order[k]] = true;
    const double outpost_share = static_cast<double>(options_.outpost_gateways) / options_.gateways;
    for (int i = 0; i < options_.gateways; ++i) {
        outpost_.push_back(std::floor((i + 1) * outpost_share) > std::floor(i * outpost_share));
        char name[32];
        std::snprintf(name, sizeof name, "gw-%04d", i);
        const uint64_t seed = options_.seed * 100003 + static_cast<uint64_t>(i) + 1;
        if (outpost_[i]) {
            OutpostGatewaySettings settings;
            settings.database = stores_.file(std::string(name) + ".db");
            settings.uri = broker_->uri();
            settings.gateway_id = name;
            settings.client_id = std::string("outpost-") + name;
            settings.receipt_timeout = receipt_timeout;
            settings.seed = seed;
            outposts_[i] = std::make_unique<OutpostGateway>(settings, ledger_, i);
        } else {
            RawGatewaySettings settings;
            settings.uri = broker_->uri();
            settings.gateway_id = name;
            settings.client_id = std::string("outpost-") + name;
            settings.max_in_flight = defaults.max_in_flight;
            settings.receipt_timeout = receipt_timeout;
            settings.receipt_timeout_max = defaults.receipt_timeout_max;
            settings.reconnect_initial = endpoint.reconnect_initial;
            settings.reconnect_max = endpoint.reconnect_max;
            settings.keepalive = endpoint.keepalive;
            settings.seed = seed;
            raw_[i] = std::make_unique<RawGateway>(settings, ledger_, i);
        }
    }
}

template <typename Gateway, typename Round, typename Step>
void Fleet::drive(std::vector<std::unique_ptr<Gateway>>& gateways, milliseconds pause,
                  Round round, Step step) {
    std::vector<Steady::time_point> next(options_.gateways);
    bool was_raising = false;
    while (!stop_) {
        const auto now = Steady::now();
        const bool raising = raising_;
        round(now);
        for (int i = 0; i < options_.gateways; ++i) {
            if (!gateways[i]) continue;
            if (raising && !was_raising) next[i] = now + next_pause(true);
            if (raising && now >= next[i]) {
                gateways[i]->raise(alarms_per_tick(i), now);
                next[i] = now + next_pause(false);
            }
            step(*gateways[i], now);
        }
        was_raising = raising;
        std::this_thread::sleep_for(pause);
    }
}

void Fleet::drive_raw() {
    drive(
        raw_, milliseconds(5), [](Steady::time_point) {},
        [](RawGateway& gateway, Steady::time_point now) { gateway.step(now); });
}

void Fleet::drive_outpost() {
    auto confirmations_due = Steady::now();
    bool confirm = false;
    drive(
        outposts_, milliseconds(10),
        [&](Steady::time_point now) {
            confirm = now >= confirmations_due;
            if (confirm) confirmations_due = now + milliseconds(250);
        },
        [&](OutpostGateway& gateway, Steady::time_point now) {
            gateway.poll_connection(now);
            if (confirm) gateway.poll_confirmations();
        });
}

bool Fleet::all_connected() {
    for (int i = 0; i < options_.gateways; ++i) {
        if (raw_[i] && !raw_[i]->connected()) return false;
        if (outposts_[i] && !outposts_[i]->connected()) return false;
    }
    return true;
}

double Fleet::wait_for(const std::function<bool()>& done, double limit) {
    const auto start = Steady::now();
    while (!done()) {
        if (seconds_since(start) > limit) return -1;
        std::this_thread::sleep_for(milliseconds(50));
        cpu_.sample();
    }
    return seconds_since(start);
}

void Fleet::restart(Restart kind, FleetReport& report) {
    RestartFigures figures;
    figures.kind = kind;
    say(std::string("restart: ") + restart_name(kind) + " stop of the broker");
    const Mark before = mark();
    if (kind == Restart::kGraceful) {
        broker_->stop();
    } else {
        broker_->kill();
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(options_.down_s));
    broker_->start(milliseconds(60000));
    cpu_.track("broker", broker_->pid());
    const auto up = Steady::now();
    figures.down_s = round1(seconds_since(before.at));
    figures.backlog = ledger_.open_raised_before(up);
    say("restart: broker back; backlog " + std::to_string(figures.backlog));
    figures.reconnected_s =
        round1(wait_for([&] { return all_connected(); }, options_.drain_limit_s));
    figures.drained_s = round1(
        wait_for([&] { return ledger_.open_raised_before(up) == 0; }, options_.drain_limit_s));
    figures.peak_connects_per_s = ledger_.peak_connects_per_s(up, Steady::now());
    const Mark after = mark();
    const uint64_t forwarded = after.forwarded - before.forwarded;
    figures.bridge_cpu_us_per_msg = per_msg(after.bridge_cpu - before.bridge_cpu, forwarded);
    figures.broker_cpu_us_per_msg = per_msg(after.broker_cpu - before.broker_cpu, forwarded);
    say("restart: all reconnected in " + seconds_text(figures.reconnected_s) +
        ", backlog drained in " + seconds_text(figures.drained_s) + ", peak " +
        std::to_string(figures.peak_connects_per_s) + " connects/s");
    report.restarts.push_back(figures);
}

// Alarms the broker acknowledged that never got a receipt: lost unless
// RocketMQ has a message keyed by their eventId (mqadmin queryMsgByKey, a
// JVM start each: past the first kMaxLookups, counted lost unchecked).
void Fleet::check_losses(FleetReport& report) {
    constexpr int kMaxLookups = 50;
    const std::regex message_id("[0-9A-F]{32}");
    int lookups = 0;
    for (const OpenAlarm& alarm : ledger_.open_alarms()) {
        if (!alarm.acked) {
            ++report.alarms_unsent;
            continue;
        }
        if (++lookups > kMaxLookups) {
            ++report.alarms_lost;
            continue;
        }
        const std::string command = options_.source_root + "/scripts/rocketmq.sh admin " +
                                    options_.rocketmq_dir + " queryMsgByKey -t " + options_.topic +
                                    " -k " + alarm.event_id + " 2>/dev/null";
        std::string output;
        if (FILE* pipe = ::popen(command.c_str(), "r")) {
            char buffer[4096];
            std::size_t got;
            while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) {
                output.append(buffer, got);
            }
            ::pclose(pipe);
        }
        if (!std::regex_search(output, message_id)) ++report.alarms_lost;
    }
}

FleetReport Fleet::run() {
    FleetReport report;
    report.gateways = options_.gateways;
    const auto begun = Steady::now();
    cpu_.track("fleet", ::getpid());
    start_broker();
    start_bridge();
    say("bridge connected; starting " + std::to_string(options_.gateways) + " gateways");
    const Mark start = mark();
    start_gateways();
    for (bool outpost : outpost_) report.outpost_gateways += outpost ? 1 : 0;
    std::thread raw([this] { drive_raw(); });
    std::thread outposts([this] { drive_outpost(); });
    const auto stop_drivers = [&] {
        stop_ = true;
        raw.join();
        outposts.join();
    };
    try {
        report.initial_connect_s = round1(wait_for([&] { return all_connected(); }, 300));
        report.initial_peak_connects_per_s = ledger_.peak_connects_per_s(begun, Steady::now());
        say("all connected in " + seconds_text(report.initial_connect_s) + "; warm-up");
        raising_ = true;
        std::this_thread::sleep_for(std::chrono::duration<double>(options_.warmup_s));
        say("steady phase");
        const Mark steady = mark();
        std::this_thread::sleep_for(std::chrono::duration<double>(options_.steady_s));
        const Mark steady_end = mark();
        const uint64_t forwarded = steady_end.forwarded - steady.forwarded;
        const double wall = std::chrono::duration<double>(steady_end.at - steady.at).count();
        report.steady_msg_per_s = round1(forwarded / wall);
        const double bridge_cpu = steady_end.bridge_cpu - steady.bridge_cpu;
        const double broker_cpu = steady_end.broker_cpu - steady.broker_cpu;
        report.steady_bridge_cpu_us_per_msg = per_msg(bridge_cpu, forwarded);
        report.steady_broker_cpu_us_per_msg = per_msg(broker_cpu, forwarded);
        report.steady_fleet_cpu_us_per_msg =
            per_msg(steady_end.fleet_cpu - steady.fleet_cpu, forwarded);
        report.steady_bridge_cores = std::round(bridge_cpu / wall * 100) / 100;
        report.steady_broker_cores = std::round(broker_cpu / wall * 100) / 100;
        for (std::size_t r = 0; r < options_.restarts.size(); ++r) {
            restart(options_.restarts[r], report);
            if (r + 1 < options_.restarts.size()) {
                std::this_thread::sleep_for(std::chrono::duration<double>(options_.settle_s));
            }
        }
        raising_ = false;
        say("final drain");
        report.final_drain_s =
            round1(wait_for([&] { return ledger_.open_alarms().empty(); }, options_.drain_limit_s));
        const Mark end = mark();
        const nlohmann::json status = read_json(status_path_);
        report.bridge_forwarded = end.forwarded;
        report.bridge_received = status.value("received", 0ull);
        report.bridge_duplicates = status.value("duplicates_suppressed", 0ull);
        report.bridge_cpu_us_per_msg = per_msg(end.bridge_cpu - start.bridge_cpu, end.forwarded);
        report.broker_cpu_us_per_msg = per_msg(end.broker_cpu - start.broker_cpu, end.forwarded);
    } catch (...) {
        stop_drivers();
        testing::terminate_child(bridge_pid_, milliseconds(30000));
        throw;
    }
    stop_drivers();
    raw_.clear();
    outposts_.clear();
    testing::terminate_child(bridge_pid_, milliseconds(30000));
    const Ledger::Totals totals = ledger_.totals();
    report.alarms_raised = totals.raised;
    report.publishes = totals.publishes;
    report.alarms_acked = totals.acked;
    report.receipts_delivered = totals.receipted;
    report.receipts_expected = totals.raised;
    report.republished_unacked = totals.republished_unacked;
    report.republished_unreceipted = totals.republished_unreceipted;
    say("checking unreceipted alarms against RocketMQ");
    check_losses(report);
    std::ifstream("/proc/loadavg") >> report.load1;
    broker_->stop();
    return report;
}

}  // namespace

nlohmann::json FleetReport::to_json() const {
    nlohmann::json restart_list = nlohmann::json::array();
    for (const RestartFigures& r : restarts) {
        restart_list.push_back({{"kind", restart_name(r.kind)},
                                {"down_s", r.down_s},
                                {"backlog", r.backlog},
                                {"reconnected_s", r.reconnected_s},
                                {"peak_connects_per_s", r.peak_connects_per_s},
                                {"drained_s", r.drained_s},
                                {"bridge_cpu_us_per_msg", r.bridge_cpu_us_per_msg},
                                {"broker_cpu_us_per_msg", r.broker_cpu_us_per_msg}});
    }
    return {{"bench", "fleet"},
            {"gateways", gateways},
            {"outpost_gateways", outpost_gateways},
            {"alarms_raised", alarms_raised},
            {"publishes", publishes},
            {"alarms_acked", alarms_acked},
            {"alarms_lost", alarms_lost},
            {"alarms_unsent", alarms_unsent},
            {"receipts_delivered", receipts_delivered},
            {"receipts_expected", receipts_expected},
            {"republished_unacked", republished_unacked},
            {"republished_unreceipted", republished_unreceipted},
            {"initial_connect_s", initial_connect_s},
            {"initial_peak_connects_per_s", initial_peak_connects_per_s},
            {"restarts", restart_list},
            {"final_drain_s", final_drain_s},
            {"steady_msg_per_s", steady_msg_per_s},
            {"steady_bridge_cpu_us_per_msg", steady_bridge_cpu_us_per_msg},
            {"steady_broker_cpu_us_per_msg", steady_broker_cpu_us_per_msg},
            {"steady_fleet_cpu_us_per_msg", steady_fleet_cpu_us_per_msg},
            {"steady_bridge_cores", steady_bridge_cores},
            {"steady_broker_cores", steady_broker_cores},
            {"bridge_received", bridge_received},
            {"bridge_forwarded", bridge_forwarded},
            {"bridge_duplicates", bridge_duplicates},
            {"bridge_cpu_us_per_msg", bridge_cpu_us_per_msg},
            {"broker_cpu_us_per_msg", broker_cpu_us_per_msg},
            {"load1", load1}};
}

FleetReport run_fleet(const FleetOptions& options) {
    if (options.gateways < 1 || options.outpost_gateways < 0 ||
        options.outpost_gateways > options.gateways) {
        throw std::invalid_argument("fleet: 1 <= outpost_gateways <= gateways");
    }
    Fleet fleet(options);
    return fleet.run();
}

}  // namespace outpost::fleet
