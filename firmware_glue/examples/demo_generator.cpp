// A demo alarm-and-telemetry generator: what firmware that does not link the
// C++ library does with a running outpostd. Alarms go to the daemon's alarm
// socket (one JSON line each, answered with the eventId after the durable
// commit); telemetry goes as datagrams "<key>\n<payload>" to the telemetry
// socket. Used by scripts/demo.
//
//   outpost-demo-generator --socket PATH [--telemetry-socket PATH]
//       [--alarms N] [--rate PER_SECOND] [--devices K] [--telemetry-per-alarm M]
//
// Prints one line per 50 alarms; exits 0 once every alarm was acknowledged
// with an eventId, 1 on the first error answer (printed).
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "ingest/client.h"

namespace {

struct Args {
    std::string socket;
    std::string telemetry_socket;
    long alarms = 200;
    double rate = 50;
    int devices = 4;
    int telemetry_per_alarm = 5;
};

const char* kUsage =
    "usage: outpost-demo-generator --socket PATH [--telemetry-socket PATH]\n"
    "         [--alarms N (200)] [--rate PER_SECOND (50)] [--devices K (4)]\n"
    "         [--telemetry-per-alarm M (5)]\n"
    "Raises N alarms through outpostd's alarm socket across K devices and sends\n"
    "M telemetry datagrams per alarm to the telemetry socket.\n";

bool parse(int argc, char** argv, Args* args) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "outpost-demo-generator: %s needs a value\n%s", arg.c_str(),
                         kUsage);
            return false;
        }
        const char* value = argv[++i];
        if (arg == "--socket")
            args->socket = value;
        else if (arg == "--telemetry-socket")
            args->telemetry_socket = value;
        else if (arg == "--alarms")
            args->alarms = std::atol(value);
        else if (arg == "--rate")
            args->rate = std::atof(value);
        else if (arg == "--devices")
            args->devices = std::atoi(value);
        else if (arg == "--telemetry-per-alarm")
            args->telemetry_per_alarm = std::atoi(value);
        else {
            std::fprintf(stderr, "outpost-demo-generator: unknown argument '%s'\n%s", arg.c_str(),
                         kUsage);
            return false;
        }
    }
    if (args->socket.empty() || args->alarms <= 0 || args->rate <= 0 || args->devices <= 0 ||
        args->telemetry_per_alarm < 0) {
        std::fprintf(stderr,
                     "outpost-demo-generator: --socket is required; counts and rate "
                     "must be positive\n");
        return false;
    }
    return true;
}

// The firmware side of the telemetry socket: one datagram, no answer.
class TelemetrySender final {
  public:
    explicit TelemetrySender(const std::string& path) : fd_(socket(AF_UNIX, SOCK_DGRAM, 0)) {
        address_.sun_family = AF_UNIX;
        std::strncpy(address_.sun_path, path.c_str(), sizeof address_.sun_path - 1);
    }
    ~TelemetrySender() { close(fd_); }
    TelemetrySender(const TelemetrySender&) = delete;
    TelemetrySender& operator=(const TelemetrySender&) = delete;

    // Best effort, like telemetry itself: a full socket buffer drops it.
    void send(const std::string& key, const std::string& payload) const {
        const std::string datagram = key + "\n" + payload;
        (void)!sendto(fd_, datagram.data(), datagram.size(), MSG_DONTWAIT,
                      reinterpret_cast<const sockaddr*>(&address_), sizeof address_);
    }

  private:
    int fd_;
    sockaddr_un address_{};
};

nlohmann::json alarm_request(long index, int devices) {
    static const char* const kSeverities[] = {"info", "warning", "minor", "major", "critical"};
    return {{"op", "raise_alarm"},
            {"alarm",
             {{"deviceId", "pump-" + std::to_string(index % devices)},
              {"alarmType", index % 3 == 0 ? "OVER_PRESSURE" : "OVER_TEMPERATURE"},
              {"severity", kSeverities[index % 5]},
              {"value", 80.0 + static_cast<double>(index % 20)},
              {"unit", "degC"},
              {"text", "demo alarm " + std::to_string(index)}}}};
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!parse(argc, argv, &args)) return 2;
    auto client = outpost::ingest::Client::connect(args.socket);
    if (!client.is_ok()) {
        std::fprintf(stderr, "outpost-demo-generator: %s\n", client.status().to_string().c_str());
        return 1;
    }
    std::unique_ptr<TelemetrySender> telemetry;
    if (!args.telemetry_socket.empty())
        telemetry = std::make_unique<TelemetrySender>(args.telemetry_socket);

    const auto period = std::chrono::duration<double>(1.0 / args.rate);
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < args.alarms; ++i) {
        std::this_thread::sleep_until(
            start + std::chrono::duration_cast<std::chrono::nanoseconds>(period * i));
        auto answer = (*client)->call(alarm_request(i, args.devices), std::chrono::seconds(30));
        if (!answer.is_ok() || !answer->value("ok", false)) {
            std::fprintf(
                stderr, "outpost-demo-generator: alarm %ld: %s\n", i,
                answer.is_ok() ? answer->dump().c_str() : answer.status().to_string().c_str());
            return 1;
        }
        for (int t = 0; telemetry && t < args.telemetry_per_alarm; ++t) {
            const std::string device = "pump-" + std::to_string((i + t) % args.devices);
            telemetry->send(device + "/temp", std::to_string(60 + (i + t) % 30));
        }
        if ((i + 1) % 50 == 0 || i + 1 == args.alarms) {
            std::printf("generator: %ld alarms acknowledged, last eventId %s\n", i + 1,
                        answer->value("eventId", "").c_str());
            std::fflush(stdout);
        }
    }
    return 0;
}
