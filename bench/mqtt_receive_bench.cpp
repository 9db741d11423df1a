// MQTT QoS 1 receive paths compared on one mosquitto: how fast a session can
// take messages, and at what CPU cost, when each message must wait for a
// RocketMQ SEND_OK before it may be acknowledged.
//
//   (a) paho C, the message callback returns at once (PUBACK right away);
//   (b) paho C, the callback holds each message for D ms, a simulated
//       SEND_OK (paho sends the PUBACK when the callback returns, so one
//       session holds one message at a time);
//   (c) our subscriber (src/bridge/mqtt/v5) with Receive Maximum R, taking
//       B messages, waiting D ms for the batch's simulated SEND_OK, then
//       acknowledging the B.
//
// Each round: the receiver's persistent session is created and subscribed,
// one publisher (paho, its own process) floods N QoS 1 messages into it
// while it is away, then the receiver (its own process) reconnects and
// drains them. Measured in the receiver: wall time from its CONNECT to the
// N-th acknowledgement, and its process CPU time (every thread, paho's
// included) over the same span. Prints each round, the medians per mode,
// the ratios (c)/(b) and (c)/(a), and a JSON summary as the last line.
#include <MQTTAsync.h>
#include <mqtt/async_client.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.h"
#include "bridge/mqtt/v5/subscriber.h"
#include "mosquitto_fixture.h"
#include "process_cpu.h"

namespace {

using namespace std::chrono_literals;
using outpost::Result;
using outpost::Status;
namespace mqtt5 = outpost::bridge::mqtt5;

struct Settings {
    int messages = 10000;
    int rounds = 3;
    int send_ok_ms = 2;
    int receive_maximum = 64;
    int batch = 32;
    int payload_bytes = 256;
};

constexpr const char* kTopic = "bench/gw-1/alarm";

double process_cpu_now() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// What a receiver process reports on its pipe.
struct Drain {
    int messages = 0;
    double seconds = 0;
    double cpu_seconds = 0;
};

// (a) and (b): paho C's asynchronous client, PUBACK when the callback returns.
struct PahoReceiver {
    std::atomic<int> received{0};
    int target = 0;
    int hold_ms = 0;
    std::mutex mutex;
    std::condition_variable done;
    std::atomic<int> connect_result{1};  // 1: pending, 0: connected, -1: failed

    static int on_message(void* context, char* topic, int, MQTTAsync_message* message) {
        auto* self = static_cast<PahoReceiver*>(context);
        if (self->hold_ms > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(self->hold_ms));
        MQTTAsync_freeMessage(&message);
        MQTTAsync_free(topic);
        if (++self->received == self->target) {
            std::lock_guard<std::mutex> lock(self->mutex);
            self->done.notify_all();
        }
        return 1;  // handled: paho sends the PUBACK now
    }
    static void on_connected(void* context, MQTTAsync_successData5*) {
        static_cast<PahoReceiver*>(context)->connect_result = 0;
    }
    static void on_connect_failed(void* context, MQTTAsync_failureData5*) {
        static_cast<PahoReceiver*>(context)->connect_result = -1;
    }
};

Drain drain_with_paho(const std::string& uri, const std::string& client_id, int messages,
                      int hold_ms) {
    PahoReceiver receiver;
    receiver.target = messages;
    receiver.hold_ms = hold_ms;
    MQTTAsync client = nullptr;
    MQTTAsync_createOptions create = MQTTAsync_createOptions_initializer5;
    if (MQTTAsync_createWithOptions(&client, uri.c_str(), client_id.c_str(),
                                    MQTTCLIENT_PERSISTENCE_NONE, nullptr,
                                    &create) != MQTTASYNC_SUCCESS) {
        return {};
    }
    MQTTAsync_setCallbacks(client, &receiver, nullptr, &PahoReceiver::on_message, nullptr);
    MQTTProperties properties = MQTTProperties_initializer;
    MQTTProperty expiry{};
    expiry.identifier = MQTTPROPERTY_CODE_SESSION_EXPIRY_INTERVAL;
    expiry.value.integer4 = 3600;
    MQTTProperties_add(&properties, &expiry);
    MQTTAsync_connectOptions options = MQTTAsync_connectOptions_initializer5;
    options.cleanstart = 0;
    options.keepAliveInterval = 30;
    options.connectProperties = &properties;
    options.onSuccess5 = &PahoReceiver::on_connected;
    options.onFailure5 = &PahoReceiver::on_connect_failed;
    options.context = &receiver;

    const double cpu_start = process_cpu_now();
    const auto start = std::chrono::steady_clock::now();
    Drain drain;
    if (MQTTAsync_connect(client, &options) == MQTTASYNC_SUCCESS) {
        std::unique_lock<std::mutex> lock(receiver.mutex);
        receiver.done.wait_for(lock, 600s, [&] {
            return receiver.received >= messages || receiver.connect_result < 0;
        });
    }
    drain.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    drain.cpu_seconds = process_cpu_now() - cpu_start;
    drain.messages = receiver.received;
    MQTTAsync_disconnectOptions disconnect = MQTTAsync_disconnectOptions_initializer5;
    MQTTAsync_disconnect(client, &disconnect);
    std::this_thread::sleep_for(100ms);  // let the DISCONNECT go out
    MQTTAsync_destroy(&client);
    MQTTProperties_free(&properties);
    return drain;
}

// (c): ours, B messages per simulated SEND_OK, then B acknowledgements.
Drain drain_with_ours(const std::string& address, const std::string& client_id,
                      const Settings& settings) {
    mqtt5::SubscriberOptions options;
    options.address = address;
    options.client_id = client_id;
    options.receive_maximum = static_cast<uint16_t>(settings.receive_maximum);
    const double cpu_start = process_cpu_now();
    const auto start = std::chrono::steady_clock::now();
    Drain drain;
    auto subscriber = mqtt5::Subscriber::connect(options);
    if (!subscriber.is_ok()) {
        std::fprintf(stderr, "ours: %s\n", subscriber.status().to_string().c_str());
        return drain;
    }
    std::vector<uint16_t> batch;
    while (drain.messages < settings.messages) {
        const int wanted = std::min(settings.batch, settings.messages - drain.messages);
        batch.clear();
        while (static_cast<int>(batch.size()) < wanted) {
            Result<mqtt5::Message> message =
                (*subscriber)->receive(std::chrono::steady_clock::now() + 60s);
            if (!message.is_ok()) {
                std::fprintf(stderr, "ours: %s\n", message.status().to_string().c_str());
                return drain;
            }
            batch.push_back(message->packet_id);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(settings.send_ok_ms));
        for (uint16_t id : batch) {
            Status acknowledged = (*subscriber)->acknowledge(id);
            if (!acknowledged.is_ok()) {
                std::fprintf(stderr, "ours: %s\n", acknowledged.to_string().c_str());
                return drain;
            }
        }
        drain.messages += wanted;
    }
    drain.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    drain.cpu_seconds = process_cpu_now() - cpu_start;
    (*subscriber)->disconnect().ignore_error("the figures are taken");
    return drain;
}

// Runs `work` in a child process (so paho's threads never live in this
// one, and each receiver's CPU is its own); returns what it reported.
template <typename Work>
Drain in_child(Work work) {
    int pipe_ends[2];
    if (::pipe(pipe_ends) != 0) return {};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(pipe_ends[0]);
        const Drain drain = work();
        char line[128];
        const int size = std::snprintf(line, sizeof line, "%d %.9f %.9f\n", drain.messages,
                                       drain.seconds, drain.cpu_seconds);
        if (::write(pipe_ends[1], line, static_cast<std::size_t>(size)) != size) ::_exit(1);
        ::_exit(0);
    }
    ::close(pipe_ends[1]);
    std::string text;
    char buffer[256];
    for (ssize_t got; (got = ::read(pipe_ends[0], buffer, sizeof buffer)) > 0;) {
        text.append(buffer, static_cast<std::size_t>(got));
    }
    ::close(pipe_ends[0]);
    ::waitpid(pid, nullptr, 0);
    Drain drain;
    std::sscanf(text.c_str(), "%d %lf %lf", &drain.messages, &drain.seconds, &drain.cpu_seconds);
    return drain;
}

// The persistent session the receiver will drain: created empty and
// subscribed, then left (our subscriber; the session is the broker's,
// whichever client library resumes it).
bool prepare_session(const std::string& address, const std::string& client_id) {
    mqtt5::SubscriberOptions options;
    options.address = address;
    options.client_id = client_id;
    options.clean_start = true;
    auto subscriber = mqtt5::Subscriber::connect(options);
    if (!subscriber.is_ok()) {
        std::fprintf(stderr, "session: %s\n", subscriber.status().to_string().c_str());
        return false;
    }
    Status subscribed =
        (*subscriber)->subscribe({{"bench/#", 1}}, std::chrono::steady_clock::now() + 10s);
    if (!subscribed.is_ok()) {
        std::fprintf(stderr, "subscribe: %s\n", subscribed.to_string().c_str());
        return false;
    }
    return (*subscriber)->disconnect().is_ok();
}

// N QoS 1 messages from one paho publisher, 100 in flight, in a child process.
bool flood(const std::string& uri, int messages, int payload_bytes) {
    const Drain published = in_child([&] {
        Drain result;
        try {
            mqtt::async_client client(uri, "bench-publisher", mqtt::create_options(MQTTVERSION_5),
                                      nullptr);
            auto options = mqtt::connect_options_builder()
                               .mqtt_version(MQTTVERSION_5)
                               .clean_start(true)
                               .finalize();
            client.connect(options)->wait_for(10s);
            const std::string payload(static_cast<std::size_t>(payload_bytes), 'x');
            std::deque<mqtt::delivery_token_ptr> in_flight;
            for (int i = 0; i < messages; ++i) {
                if (in_flight.size() >= 100) {
                    in_flight.front()->wait_for(30s);
                    in_flight.pop_front();
                }
                in_flight.push_back(client.publish(mqtt::make_message(kTopic, payload, 1, false)));
                ++result.messages;
            }
            for (auto& token : in_flight) token->wait_for(30s);
            client.disconnect()->wait_for(10s);
        } catch (const mqtt::exception& error) {
            std::fprintf(stderr, "publisher: %s\n", error.what());
            result.messages = 0;
        }
        return result;
    });
    return published.messages == messages;
}

struct Figures {
    std::vector<double> rate;         // messages per second
    std::vector<double> cpu_per_msg;  // receiver CPU microseconds per message
    std::vector<double> broker_cpu_per_msg;
};

void print_help(const char* program) {
    std::printf(
        "usage: %s [--messages=N] [--rounds=N] [--send-ok-ms=D] [--receive-maximum=R]\n"
        "          [--batch=B] [--payload-bytes=N]\n"
        "Compares MQTT QoS 1 receivers draining N messages from one mosquitto:\n"
        "  (a) paho C, callback returns at once\n"
        "  (b) paho C, callback holds each message D ms (a simulated SEND_OK)\n"
        "  (c) our subscriber, Receive Maximum R, B messages per D ms wait, then B acks\n"
        "Prints msg/s and receiver CPU us/msg per round, medians over the rounds, the\n"
        "ratios (c)/(b) and (c)/(a), and a JSON summary line last.\n"
        "Defaults: --messages=10000 --rounds=3 --send-ok-ms=2 --receive-maximum=64\n"
        "          --batch=32 --payload-bytes=256\n",
        program);
}

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            print_help(argv[0]);
            return 0;
        }
    }
    Settings settings;
    if (!outpost::bench::parse_int_flags(argc, argv,
                                         {{"--messages", &settings.messages},
                                          {"--rounds", &settings.rounds},
                                          {"--send-ok-ms", &settings.send_ok_ms},
                                          {"--receive-maximum", &settings.receive_maximum},
                                          {"--batch", &settings.batch},
                                          {"--payload-bytes", &settings.payload_bytes}},
                                         0)) {
        return 2;
    }
    if (settings.messages < 1 || settings.rounds < 1 || settings.batch < 1 ||
        settings.receive_maximum < 1 || settings.receive_maximum > 65535 ||
        settings.batch > settings.receive_maximum) {
        std::fprintf(stderr,
                     "need messages, rounds, batch >= 1 and batch <= receive-maximum <= 65535\n");
        return 2;
    }
    if (!outpost::testing::mosquitto_available()) {
        std::fprintf(stderr, "mosquitto is not installed\n");
        return 77;
    }
    outpost::testing::MosquittoConfig config;
    config.max_inflight_messages = 1000;  // the publisher's window is never the limit
    config.max_queued_messages = settings.messages + 1000;
    outpost::testing::Mosquitto broker(config);
    const std::string address = "127.0.0.1:" + std::to_string(broker.port());
    const std::string uri = "tcp://" + address;

    const std::vector<std::string> modes = {"a_paho_immediate", "b_paho_held", "c_ours_batched"};
    std::map<std::string, Figures> figures;
    for (int round = 1; round <= settings.rounds; ++round) {
        for (const std::string& mode : modes) {
            const std::string client_id = "bench-" + mode + "-" + std::to_string(round);
            if (!prepare_session(address, client_id) ||
                !flood(uri, settings.messages, settings.payload_bytes)) {
                std::fprintf(stderr, "round %d %s: setup failed\n%s\n", round, mode.c_str(),
                             broker.log_tail().c_str());
                return 1;
            }
            const double broker_cpu_start = outpost::bench::process_cpu_seconds(broker.pid());
            const Drain drain = in_child([&] {
                if (mode == "c_ours_batched") return drain_with_ours(address, client_id, settings);
                return drain_with_paho(uri, client_id, settings.messages,
                                       mode == "b_paho_held" ? settings.send_ok_ms : 0);
            });
            const double broker_cpu =
                outpost::bench::process_cpu_seconds(broker.pid()) - broker_cpu_start;
            if (drain.messages != settings.messages || drain.seconds <= 0) {
                std::fprintf(stderr, "round %d %s: drained %d of %d\n", round, mode.c_str(),
                             drain.messages, settings.messages);
                return 1;
            }
            Figures& f = figures[mode];
            f.rate.push_back(drain.messages / drain.seconds);
            f.cpu_per_msg.push_back(drain.cpu_seconds * 1e6 / drain.messages);
            f.broker_cpu_per_msg.push_back(broker_cpu * 1e6 / drain.messages);
            std::printf(
                "round %d %-16s %10.0f msg/s  receiver CPU %7.2f us/msg  broker CPU %7.2f us/msg\n",
                round, mode.c_str(), f.rate.back(), f.cpu_per_msg.back(),
                f.broker_cpu_per_msg.back());
            std::fflush(stdout);
        }
    }

    using outpost::bench::median;
    std::map<std::string, std::pair<double, double>> medians;  // rate, cpu
    for (const std::string& mode : modes) {
        medians[mode] = {median(figures[mode].rate), median(figures[mode].cpu_per_msg)};
        std::printf(
            "median %-16s %10.0f msg/s  receiver CPU %7.2f us/msg  broker CPU %7.2f us/msg\n",
            mode.c_str(), medians[mode].first, medians[mode].second,
            median(figures[mode].broker_cpu_per_msg));
    }
    const auto& a = medians["a_paho_immediate"];
    const auto& b = medians["b_paho_held"];
    const auto& c = medians["c_ours_batched"];
    std::printf("ratio (c)/(b): %.2f x msg/s, %.2f x CPU/msg\n", c.first / b.first,
                c.second / b.second);
    std::printf("ratio (c)/(a): %.2f x msg/s, %.2f x CPU/msg\n", c.first / a.first,
                c.second / a.second);
    std::printf(
        "{\"bench\":\"mqtt_receive\",\"messages\":%d,\"rounds\":%d,\"send_ok_ms\":%d,"
        "\"receive_maximum\":%d,\"batch\":%d,\"payload_bytes\":%d,"
        "\"a_paho_immediate\":{\"msg_per_s\":%.0f,\"cpu_us_per_msg\":%.2f},"
        "\"b_paho_held\":{\"msg_per_s\":%.0f,\"cpu_us_per_msg\":%.2f},"
        "\"c_ours_batched\":{\"msg_per_s\":%.0f,\"cpu_us_per_msg\":%.2f},"
        "\"c_over_b\":{\"msg_per_s\":%.2f,\"cpu_us_per_msg\":%.2f},"
        "\"c_over_a\":{\"msg_per_s\":%.2f,\"cpu_us_per_msg\":%.2f}}\n",
        settings.messages, settings.rounds, settings.send_ok_ms, settings.receive_maximum,
        settings.batch, settings.payload_bytes, a.first, a.second, b.first, b.second, c.first,
        c.second, c.first / b.first, c.second / b.second, c.first / a.first, c.second / a.second);
    return 0;
}
