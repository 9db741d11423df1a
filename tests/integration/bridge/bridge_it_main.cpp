// main() for the bridge integration tests: they need mosquitto and the
// runner's RocketMQ (OUTPOST_ROCKETMQ_ENV = the env file `scripts/rocketmq.sh
// start DIR` wrote). Built a second time with OUTPOST_ROCKETMQ_ENV_VAR
// naming another variable for the tests of a RocketMQ with authentication or
// TLS (ROCKETMQ_AUTH=1 / ROCKETMQ_TLS=1); topics are then created with its
// credentials or over TLS. Registered for the second broker
// (OUTPOST_BRIDGE_TEST_BROKER=mochi), it also needs that broker's binary in
// OUTPOST_MOCHI_BROKER. Without them, the binary reports a TAP SKIP.
// Built with OUTPOST_BRIDGE_OWN_ROCKETMQ for a test that starts RocketMQ
// itself (scripts/rocketmq.sh, e.g. two broker groups): it needs java and
// the jars instead of the runner's RocketMQ, and fills rocketmq_env() itself.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <catch2/catch_reporter_tap.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "bridge_harness.h"
#include "env_file.h"
#include "rocketmq/admin.h"
#include "rocketmq/client_security.h"
#include "rocketmq/route.h"

#ifndef OUTPOST_ROCKETMQ_ENV_VAR
#define OUTPOST_ROCKETMQ_ENV_VAR "OUTPOST_ROCKETMQ_ENV"
#endif

namespace outpost::testing {

std::map<std::string, std::string>& rocketmq_env() {
    static std::map<std::string, std::string> env;
    return env;
}

// What the env file says about signing and TLS: the super user's
// credentials (with authorization on, only it may create topics; the client
// user's on an env without them), and TLS verified against the instance's
// own CA.
rocketmq::ClientSecurity admin_security() {
    std::map<std::string, std::string>& env = rocketmq_env();
    rocketmq::ClientSecurity security;
    const bool admin = !env["ROCKETMQ_ADMIN_ACCESS_KEY"].empty();
    const std::string access_key = env[admin ? "ROCKETMQ_ADMIN_ACCESS_KEY" : "ROCKETMQ_ACCESS_KEY"];
    if (!access_key.empty()) {
        std::string secret =
            read_file(env[admin ? "ROCKETMQ_ADMIN_SECRET_FILE" : "ROCKETMQ_SECRET_FILE"]);
        while (!secret.empty() && secret.back() == '\n') secret.pop_back();
        security.credentials = rocketmq::Credentials{access_key, secret};
    }
    if (!env["ROCKETMQ_TLS_CA"].empty()) {
        rocketmq::TlsOptions options;
        options.ca_file = env["ROCKETMQ_TLS_CA"];
        auto context = rocketmq::TlsContext::create(options);
        REQUIRE(context.is_ok());
        security.tls = std::move(context).value();
    }
    return security;
}

void create_rocketmq_topic(const std::string& topic, int queues) {
    const rocketmq::ClientSecurity security = admin_security();
    rocketmq::TopicSpec spec;
    spec.name = topic;
    spec.read_queue_count = queues;
    spec.write_queue_count = queues;
    std::vector<std::string> brokers = {rocketmq_env()["BROKER_ADDR"]};
    if (!rocketmq_env()["BROKER_B_ADDR"].empty()) {
        brokers.push_back(rocketmq_env()["BROKER_B_ADDR"]);
    }
    for (const std::string& broker : brokers) {
        const outpost::Status created =
            rocketmq::create_topic(broker, spec, std::chrono::seconds(10), security);
        INFO(broker << ": " << created.to_string());
        REQUIRE(created.is_ok());
    }
    const outpost::Status routed = rocketmq::wait_for_topic_route(
        rocketmq_env()["NAMESRV_ADDR"], topic, std::chrono::seconds(30), security);
    INFO(routed.to_string());
    REQUIRE(routed.is_ok());
    if (brokers.size() == 1) return;
    // Each broker registers the topic with the name server on its own.
    rocketmq::Connection name_server(rocketmq_env()["NAMESRV_ADDR"], 1, security);
    const bool on_all = wait_until(
        [&] {
            Result<rocketmq::TopicRoute> route =
                rocketmq::query_topic_route(name_server, topic, std::chrono::seconds(5));
            if (!route.is_ok()) return false;
            std::set<std::string> writable;
            for (const rocketmq::MessageQueue& queue : route->write_queues()) {
                writable.insert(queue.broker_name);
            }
            return writable.size() == brokers.size();
        },
        std::chrono::seconds(30));
    REQUIRE(on_all);
}

}  // namespace outpost::testing

#ifdef OUTPOST_BRIDGE_OWN_ROCKETMQ
// Why scripts/rocketmq.sh cannot start RocketMQ here, or "" when it can:
// java must be there, and the jars fetched (`fetch` resolves them when
// missing, and says what it lacks when it cannot).
static std::string own_rocketmq_missing() {
    const char* java = std::getenv("JAVA");
    const std::string java_check = std::string("command -v '") +
                                   (java != nullptr && *java != '\0' ? java : "java") +
                                   "' >/dev/null 2>&1";
    if (std::system(java_check.c_str()) != 0) {
        return "java not found (this test starts its own RocketMQ with scripts/rocketmq.sh; "
               "on Debian: apt-get install -y openjdk-17-jre-headless)";
    }
    int status = -1;
    const std::string output = outpost::testing::rocketmq_script("fetch", false, &status);
    if (status != 0) {
        return "scripts/rocketmq.sh fetch could not provide the RocketMQ jars: " +
               outpost::testing::one_line(outpost::testing::tail_of(output, 3));
    }
    return "";
}
#endif

int main(int argc, char* argv[]) {
    int exit_code = 0;
    if (outpost::testing::skip_without_mosquitto(argc, argv, &exit_code)) return exit_code;
#ifdef OUTPOST_BRIDGE_OWN_ROCKETMQ
    // The test starts its RocketMQ itself: the runner's is not needed.
    if (const std::string missing = own_rocketmq_missing(); !missing.empty()) {
        std::printf("1..0 # SKIP %s\n", missing.c_str());
        return 0;
    }
    return Catch::Session().run(argc, argv);
#endif
    if (outpost::testing::second_broker_selected() &&
        outpost::testing::mochi_broker_program().empty()) {
        std::printf(
            "1..0 # SKIP OUTPOST_MOCHI_BROKER does not name the second broker (build it with "
            "scripts/mqtt-broker.sh path and export its output)\n");
        return 0;
    }
    const char* env_path = std::getenv(OUTPOST_ROCKETMQ_ENV_VAR);
    if (env_path == nullptr || *env_path == '\0') {
        std::printf("1..0 # SKIP " OUTPOST_ROCKETMQ_ENV_VAR
                    " is not set (the runner starts RocketMQ "
                    "with scripts/rocketmq.sh start DIR and exports DIR/env)\n");
        return 0;
    }
    auto& env = outpost::testing::rocketmq_env();
    env = outpost::testing::read_env_file(env_path);
    if (env["NAMESRV_ADDR"].empty() || env["BROKER_ADDR"].empty()) {
        std::printf("Bail out! %s lacks NAMESRV_ADDR or BROKER_ADDR\n", env_path);
        return 1;
    }
    return Catch::Session().run(argc, argv);
}
