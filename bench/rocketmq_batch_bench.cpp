// Batched sends of our RocketMQ producer (Producer::send_batch) against its
// single sends and against the official Java producer (rocketmq-client
// 5.3.3, DefaultMQProducer), single and batched, on one broker in one run.
//
//   rocketmq_batch_bench [--messages=16384] [--rounds=3] [--body=512]
//                        [--devices=16] [--small-batch=16] [--large-batch=64]
//
// Modes, each sending --messages messages of --body bytes (tag, key, one
// user property), device by device over --devices sharding keys, one
// request at a time from one thread, each request waiting for the broker's
// answer: ours_single, ours_batch_S, ours_batch_L, java_single,
// java_batch_S, java_batch_L (S, L the batch sizes). Every message of a
// batch is for one device and goes to that device's queue. The Java
// producer runs in its own JVM (consumer/.../bench/ProducerBench.java,
// built by scripts/consumer.sh), driven over a pipe and kept warm; each
// mode runs once unmeasured first. Then --rounds rounds of all six modes,
// ours and Java alternating.
//
// Per mode, the median over the rounds of: msg/s, and CPU microseconds per
// message of each process over the mode's window (user + system from
// /proc/PID/stat, process_cpu.h): this bench (our producer), the broker JVM
// and the Java producer's JVM (the one idle in the other producer's modes
// shows its background cost). The broker's figure includes what it spends
// per unit of time whatever the load (flush and housekeeping services), so
// a slower mode looks dearer per message. Ratios: ours batched / Java
// batched at each size, batched / single for each producer. The last line
// of output is one JSON object with all of it, the broker's flushDiskType
// and the load. The defaults take a few minutes on a SYNC_FLUSH broker.
//
// RocketMQ: the one OUTPOST_ROCKETMQ_ENV names, else one started here with
// flushDiskType=SYNC_FLUSH (bench_rocketmq.h). Needs java, and mvn for the
// first build of the Java side.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_rocketmq.h"
#include "bench_support.h"
#include "cpu_window.h"
#include "java_producer.h"
#include "rocketmq/admin.h"
#include "rocketmq/producer.h"

using namespace outpost;
using Steady = std::chrono::steady_clock;

namespace {

struct Args {
    int messages = 16384;  // CPU is read in 10 ms ticks: 0.6 us per message
    int rounds = 3;
    int body = 512;
    int devices = 16;
    int small_batch = 16;
    int large_batch = 64;
};

// Sends `count` messages with our producer as the Java side does; "" on success.
std::string send_ours(rocketmq::Producer& producer, const std::string& topic, int count, int batch,
                      const Args& args, const std::string& run) {
    const std::string body(static_cast<std::size_t>(args.body), 'b');
    int sent = 0;
    for (int request = 0; sent < count; ++request) {
        const std::string device = "device-" + std::to_string(request % args.devices);
        const int size = std::min(batch, count - sent);
        if (batch == 1) {
            auto receipt = producer.send(topic, "bench", run + "-" + std::to_string(sent), body,
                                         device, {{"device", device}});
            if (!receipt.is_ok()) return receipt.status().to_string();
        } else {
            std::vector<rocketmq::BatchMessage> messages;
            messages.reserve(static_cast<std::size_t>(size));
            for (int i = 0; i < size; ++i) {
                messages.push_back(
                    {"bench", run + "-" + std::to_string(sent + i), body, {{"device", device}}});
            }
            auto receipt = producer.send_batch(topic, messages, device);
            if (!receipt.is_ok()) return receipt.status().to_string();
        }
        sent += size;
    }
    return "";
}

struct Mode {
    std::string name;
    bool java;
    int batch;
};

}  // namespace

int main(int argc, char** argv) {
    Args args;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::printf(
                "rocketmq_batch_bench: our RocketMQ producer's batched and single sends against\n"
                "the official Java producer's, on one broker (OUTPOST_ROCKETMQ_ENV, else a\n"
                "SYNC_FLUSH one started here), medians over rounds; ends with a JSON line.\n"
                "  --messages=N     messages per mode and round (16384)\n"
                "  --rounds=N       measured rounds (3)\n"
                "  --body=N         body bytes (512)\n"
                "  --devices=N      sharding keys the messages rotate over (16)\n"
                "  --small-batch=N  --large-batch=N   the two batch sizes (16, 64)\n");
            return 0;
        }
    }
    if (!bench::parse_int_flags(argc, argv,
                                {{"--messages", &args.messages},
                                 {"--rounds", &args.rounds},
                                 {"--body", &args.body},
                                 {"--devices", &args.devices},
                                 {"--small-batch", &args.small_batch},
                                 {"--large-batch", &args.large_batch}})) {
        return 2;
    }

    bench::BenchRocketMq rocketmq("rocketmq_batch_bench");
    const std::string run_id =
        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count());
    const std::string topic = "bench_batch_" + run_id;
    rocketmq::TopicSpec spec;
    spec.name = topic;
    spec.read_queue_count = 8;
    spec.write_queue_count = 8;
    if (!rocketmq::create_topic(rocketmq.broker_address(), spec, std::chrono::seconds(5)).is_ok() ||
        !rocketmq::wait_for_topic_route(rocketmq.name_servers(), topic, std::chrono::seconds(30))
             .is_ok()) {
        std::fprintf(stderr, "rocketmq_batch_bench: cannot create topic %s\n", topic.c_str());
        return 1;
    }

    rocketmq::ProducerOptions options;
    options.name_server_addresses = rocketmq.name_servers();
    options.producer_group = "outpost_batch_bench";
    rocketmq::Producer ours(options);
    bench::JavaProducer java(OUTPOST_SOURCE_ROOT, rocketmq.name_servers(), "java_batch_bench_" + run_id);
    if (!java.ready()) {
        std::fprintf(stderr, "rocketmq_batch_bench: the Java producer did not start\n");
        return 1;
    }

    const std::vector<Mode> modes = {
        {"ours_single", false, 1},
        {"java_single", true, 1},
        {"ours_batch_" + std::to_string(args.small_batch), false, args.small_batch},
        {"java_batch_" + std::to_string(args.small_batch), true, args.small_batch},
        {"ours_batch_" + std::to_string(args.large_batch), false, args.large_batch},
        {"java_batch_" + std::to_string(args.large_batch), true, args.large_batch}};
    auto run_mode = [&](const Mode& mode, int count, const std::string& run) {
        return mode.java ? java.send(topic, count, mode.batch, args.devices, args.body, run)
                         : send_ours(ours, topic, count, mode.batch, args, run);
    };
    for (const Mode& mode : modes) {  // warm-up: connections, routes, the JIT
        const std::string failed =
            run_mode(mode, std::max(args.large_batch, args.messages / 4), "warm-" + mode.name);
        if (!failed.empty()) {
            std::fprintf(stderr, "rocketmq_batch_bench: %s: %s\n", mode.name.c_str(),
                         failed.c_str());
            return 1;
        }
    }

    std::map<std::string, std::map<std::string, std::vector<double>>> samples;  // mode, figure
    for (int round = 0; round < args.rounds; ++round) {
        for (const Mode& mode : modes) {
            bench::CpuWindow window;
            window.begin(
                {{"bench", ::getpid()}, {"broker", rocketmq.broker_pid()}, {"java", java.pid()}});
            const auto start = Steady::now();
            const std::string failed =
                run_mode(mode, args.messages, "r" + std::to_string(round) + "-" + mode.name);
            const double seconds = std::chrono::duration<double>(Steady::now() - start).count();
            const nlohmann::json cpu = window.end(static_cast<std::size_t>(args.messages));
            if (!failed.empty()) {
                std::fprintf(stderr, "rocketmq_batch_bench: %s: %s\n", mode.name.c_str(),
                             failed.c_str());
                return 1;
            }
            auto& figures = samples[mode.name];
            figures["msg_per_s"].push_back(args.messages / seconds);
            for (const char* part : {"bench", "broker", "java", "total"}) {
                figures[std::string("cpu_us_per_msg_") + part].push_back(
                    cpu["per_msg"].value(part, 0.0));
            }
            std::printf(
                "round %d %-14s %8.0f msg/s  cpu us/msg: bench %5.0f broker %5.0f "
                "java %5.0f\n",
                round + 1, mode.name.c_str(), args.messages / seconds,
                cpu["per_msg"].value("bench", 0.0), cpu["per_msg"].value("broker", 0.0),
                cpu["per_msg"].value("java", 0.0));
            std::fflush(stdout);
        }
    }

    nlohmann::json medians = nlohmann::json::object();
    for (const auto& [mode, figures] : samples) {
        for (const auto& [figure, values] : figures) {
            medians[mode][figure] = std::round(bench::median(values) * 10) / 10;
        }
    }
    auto ratio = [&](const std::string& over, const std::string& under) {
        const double below = medians[under].value("msg_per_s", 0.0);
        return below > 0 ? std::round(medians[over].value("msg_per_s", 0.0) / below * 100) / 100
                         : 0.0;
    };
    nlohmann::json ratios = nlohmann::json::object();
    for (int batch : {args.small_batch, args.large_batch}) {
        const std::string size = std::to_string(batch);
        ratios["ours_batch_" + size + "_over_java_batch_" + size] =
            ratio("ours_batch_" + size, "java_batch_" + size);
        ratios["ours_batch_" + size + "_over_ours_single"] =
            ratio("ours_batch_" + size, "ours_single");
        ratios["java_batch_" + size + "_over_java_single"] =
            ratio("java_batch_" + size, "java_single");
    }
    ratios["ours_single_over_java_single"] = ratio("ours_single", "java_single");
    const nlohmann::json summary = {{"bench", "rocketmq_batch"},
                                    {"messages", args.messages},
                                    {"rounds", args.rounds},
                                    {"body_bytes", args.body},
                                    {"devices", args.devices},
                                    {"flush_disk_type", rocketmq.durability().flush_disk_type},
                                    {"load_average_1m", bench::load_average_1m()},
                                    {"median", medians},
                                    {"msg_per_s_ratios", ratios}};
    std::printf("%s\n", summary.dump().c_str());
    return 0;
}
