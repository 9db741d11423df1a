// An independent telemetry subscriber: mosquitto_sub (not our code, not
// paho), MQTT v5, subscribed at QoS 1 so that the QoS it prints is the QoS
// the lane published with. Each line is "<qos> <topic> <payload as hex>",
// so binary payloads and newlines survive exactly.
#ifndef OUTPOST_TESTS_TELEMETRY_SUBSCRIBER_H
#define OUTPOST_TESTS_TELEMETRY_SUBSCRIBER_H

#include <chrono>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "eventually.h"
#include "mosquitto_fixture.h"
#include "temp_dir.h"

namespace outpost::testing {

struct TelemetryReceived {
    int qos = -1;
    std::string topic;
    std::string payload;  // decoded bytes
};

inline std::string from_hex(const std::string& hex) {
    std::string bytes;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
        bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    return bytes;
}

class TelemetrySubscriber final {
  public:
    TelemetrySubscriber(const Mosquitto& broker, const std::string& client_id) {
        const std::string program = find_program("mosquitto_sub");
        if (program.empty()) throw std::runtime_error("mosquitto_sub is not installed");
        output_ = dir_.file("sub.out");
        pid_ = spawn_logged(
            {program, "-h", "127.0.0.1", "-p", std::to_string(broker.port()), "-V", "mqttv5", "-q",
             "1", "-t", "outpost/+/telemetry/#", "-i", client_id, "-F", "%q %t %x"},
            output_);
        const std::string subscribed = "Sending SUBACK to " + client_id;
        if (!eventually([&] { return broker.log().find(subscribed) != std::string::npos; })) {
            throw std::runtime_error(client_id + " never subscribed:\n" + broker.log_tail());
        }
    }
    ~TelemetrySubscriber() { terminate_child(pid_); }
    TelemetrySubscriber(const TelemetrySubscriber&) = delete;
    TelemetrySubscriber& operator=(const TelemetrySubscriber&) = delete;

    // Everything received so far, in arrival order.
    std::vector<TelemetryReceived> messages() const {
        std::vector<TelemetryReceived> all;
        std::stringstream lines(read_file(output_));
        std::string line;
        while (std::getline(lines, line)) {
            const size_t first = line.find(' ');
            const size_t second = line.find(' ', first + 1);
            if (first == std::string::npos || second == std::string::npos) continue;
            all.push_back({std::stoi(line.substr(0, first)),
                           line.substr(first + 1, second - first - 1),
                           from_hex(line.substr(second + 1))});
        }
        return all;
    }

  private:
    TempDir dir_;
    std::string output_;
    pid_t pid_ = -1;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_TELEMETRY_SUBSCRIBER_H
