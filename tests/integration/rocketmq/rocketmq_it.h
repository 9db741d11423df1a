// What the RocketMQ integration tests share: the broker's env file, the
// scripts/rocketmq.sh and mqadmin calls that check from outside our code,
// fresh topics, and a main() that skips without a broker.
//
// Needs OUTPOST_ROCKETMQ_ENV = the env file `scripts/rocketmq.sh start DIR`
// wrote; without it every test is skipped (TAP "1..0 # SKIP"). Header-only;
// include it from exactly one test program's source.
#ifndef OUTPOST_TESTS_ROCKETMQ_IT_H
#define OUTPOST_TESTS_ROCKETMQ_IT_H

#define CATCH_CONFIG_RUNNER
#include <algorithm>
#include <catch2/catch.hpp>
#include <catch2/catch_reporter_tap.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>

#include "env_file.h"
#include "rocketmq/admin.h"
#include "rocketmq/producer_options.h"

namespace outpost::testing {

// NAMESRV_ADDR, BROKER_ADDR, ROCKETMQ_DIR, ... of the broker under test.
inline std::map<std::string, std::string>& rocketmq_env() {
    static std::map<std::string, std::string> env;
    return env;
}

// Unique per test run: topics and groups of earlier runs never collide.
inline std::string run_id() {
    static const std::string id = std::to_string(
        std::chrono::system_clock::now().time_since_epoch() / std::chrono::milliseconds(1));
    return id;
}

// Runs scripts/rocketmq.sh with `arguments`; returns its output (stderr too
// unless `quiet`: mqadmin logs noise there).
inline std::string rocketmq_script(const std::string& arguments, bool quiet = false) {
    const std::string command = std::string(OUTPOST_SOURCE_ROOT) + "/scripts/rocketmq.sh " +
                                arguments + (quiet ? " 2>/dev/null" : " 2>&1");
    std::string output;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) {
        return output;
    }
    char buffer[4096];
    std::size_t got;
    while ((got = fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
        output.append(buffer, got);
    }
    pclose(pipe);
    return output;
}

// mqadmin against the broker under test.
inline std::string mqadmin(const std::string& arguments) {
    return rocketmq_script("admin " + rocketmq_env()["ROCKETMQ_DIR"] + " " + arguments, true);
}

// Tool output on one line, so it can sit in a TAP diagnostic.
inline std::string one_line(std::string text) {
    std::replace(text.begin(), text.end(), '\n', '|');
    std::replace(text.begin(), text.end(), '\'', '"');
    return text;
}

inline rocketmq::ProducerOptions test_producer_options() {
    rocketmq::ProducerOptions options;
    options.name_server_addresses = rocketmq_env()["NAMESRV_ADDR"];
    options.producer_group = "outpost_it_" + run_id();
    return options;
}

// test_producer_options() with `max_attempts` attempts a short pause apart
// and a 2 s request timeout: a broker that went away fails a send quickly.
inline rocketmq::ProducerOptions fast_failing_producer_options(int max_attempts) {
    using namespace std::chrono_literals;
    rocketmq::ProducerOptions options = test_producer_options();
    options.max_attempts = max_attempts;
    options.initial_backoff = 50ms;
    options.request_timeout = 2000ms;
    return options;
}

// A topic of this run with `queues` read and write queues, known to the
// name server when this returns.
inline std::string create_fresh_topic(const std::string& stem, int queues) {
    using namespace std::chrono_literals;
    const std::string topic = stem + "_" + run_id();
    rocketmq::TopicSpec spec;
    spec.name = topic;
    spec.read_queue_count = queues;
    spec.write_queue_count = queues;
    REQUIRE(rocketmq::create_topic(rocketmq_env()["BROKER_ADDR"], spec, 5000ms).is_ok());
    REQUIRE(rocketmq::wait_for_topic_route(rocketmq_env()["NAMESRV_ADDR"], topic, 30000ms).is_ok());
    return topic;
}

// mqadmin queryMsgByKey, retried while the broker's index catches up.
inline std::string query_by_key(const std::string& topic, const std::string& key,
                                const std::string& expect) {
    std::string output;
    for (int attempt = 0; attempt < 10; ++attempt) {
        output = mqadmin("queryMsgByKey -t " + topic + " -k " + key);
        if (output.find(expect) != std::string::npos) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    return output;
}

// The test program's main: skips without OUTPOST_ROCKETMQ_ENV, reads it,
// runs Catch2.
inline int run_rocketmq_tests(int argc, char* argv[]) {
    const char* env_path = std::getenv("OUTPOST_ROCKETMQ_ENV");
    if (env_path == nullptr || *env_path == '\0') {
        std::printf(
            "1..0 # SKIP OUTPOST_ROCKETMQ_ENV is not set (scripts/rocketmq.sh start DIR)\n");
        return 0;
    }
    rocketmq_env() = read_env_file(env_path);
    if (rocketmq_env()["NAMESRV_ADDR"].empty() || rocketmq_env()["BROKER_ADDR"].empty()) {
        std::printf("Bail out! %s lacks NAMESRV_ADDR or BROKER_ADDR\n", env_path);
        return 1;
    }
    return Catch::Session().run(argc, argv);
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_ROCKETMQ_IT_H
