// The broker survey (rocketmq/broker_durability.h) against the runner's real
// brokers: it reads each one's flushDiskType and brokerRole over the
// remoting protocol and judges SEND_OK as scripts/rocketmq.sh configured it.
//
// Env files (scripts/rocketmq.sh start DIR writes them; a missing one skips
// its case, all missing skips the test):
//   OUTPOST_ROCKETMQ_ENV       the suite's broker (ASYNC_FLUSH, ASYNC_MASTER)
//   OUTPOST_ROCKETMQ_TLS_ENV   TLS enforced; the suite starts it SYNC_FLUSH
//   OUTPOST_ROCKETMQ_AUTH_ENV  ACL on: an unsigned request is refused
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <catch2/catch_reporter_tap.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "env_file.h"
#include "eventually.h"
#include "rocketmq/broker_durability.h"
#include "rocketmq/tls_socket.h"

namespace {

using namespace std::chrono_literals;
using namespace outpost::rocketmq;

using Env = outpost::testing::EnvFile;
using outpost::testing::env_file_of;

std::string file_text(const std::string& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    std::string secret = text.str();
    while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
    return secret;
}

// The one broker behind the instance of `env`, surveyed through its name
// server for a topic nobody created (the template topic's brokers answer).
// A broker another test just restarted is in no route until it registers
// again with the name server: the survey is repeated until it is (a
// condition, for up to a minute), since what is tested here is what the
// broker answers, not when it registers.
BrokerReport survey_one(const Env& env, const ClientSecurity& security = {}) {
    auto survey = [&] {
        return survey_broker_durability({env.at("NAMESRV_ADDR")}, {"outpost_survey_probe"},
                                        security, 5s);
    };
    auto reports = survey();
    outpost::testing::eventually(
        [&] {
            if (!reports.is_ok() || !reports->empty()) return true;
            reports = survey();
            return false;
        },
        60s);
    INFO((reports.is_ok() ? std::string("surveyed") : reports.status().to_string()));
    REQUIRE(reports.is_ok());
    REQUIRE(reports->size() == 1);
    const BrokerReport report = reports->front();
    INFO(describe_broker_report(report));
    CHECK(report.address == env.at("BROKER_ADDR"));
    return report;
}

}  // namespace

TEST_CASE("an ASYNC_FLUSH, ASYNC_MASTER broker is reported as not durable, settings read back") {
    const Env env = env_file_of("OUTPOST_ROCKETMQ_ENV");
    if (env.empty() || env.count("ROCKETMQ_FLUSH_DISK_TYPE") == 0 ||
        env.at("ROCKETMQ_FLUSH_DISK_TYPE") != "ASYNC_FLUSH") {
        SUCCEED("OUTPOST_ROCKETMQ_ENV is not an ASYNC_FLUSH broker");
        return;
    }
    const BrokerReport report = survey_one(env);
    CHECK(report.broker_name == "outpost-broker-a");
    CHECK(report.durability.flush_disk_type == "ASYNC_FLUSH");
    CHECK(report.durability.broker_role == "ASYNC_MASTER");
    CHECK(report.durability.verdict == Durability::kNotDurable);
}

TEST_CASE("a SYNC_FLUSH broker is reported as durable, read over TLS") {
    const Env env = env_file_of("OUTPOST_ROCKETMQ_TLS_ENV");
    if (env.empty() || env.count("ROCKETMQ_FLUSH_DISK_TYPE") == 0 ||
        env.at("ROCKETMQ_FLUSH_DISK_TYPE") != "SYNC_FLUSH") {
        SUCCEED("OUTPOST_ROCKETMQ_TLS_ENV is not a SYNC_FLUSH broker");
        return;
    }
    TlsOptions tls;
    tls.ca_file = env.at("ROCKETMQ_TLS_CA");
    auto context = TlsContext::create(tls);
    REQUIRE(context.is_ok());
    ClientSecurity security;
    security.tls = *context;
    const BrokerReport report = survey_one(env, security);
    CHECK(report.durability.flush_disk_type == "SYNC_FLUSH");
    CHECK(report.durability.verdict == Durability::kDurable);
}

TEST_CASE("a broker that refuses the configuration request is reported as unknown, with why") {
    const Env env = env_file_of("OUTPOST_ROCKETMQ_AUTH_ENV");
    if (env.empty()) {
        SUCCEED("OUTPOST_ROCKETMQ_AUTH_ENV is not set");
        return;
    }
    // The name server answers route lookups to anyone; the broker
    // authenticates every request, so an unsigned one is refused.
    const BrokerReport report = survey_one(env);
    CHECK(report.durability.verdict == Durability::kUnknown);
    CHECK(report.durability.flush_disk_type.empty());
    CHECK(report.durability.reason.find("refused to show its configuration") != std::string::npos);

    // The bridge's shipped account (deploy/rocketmq/outpost-accounts.sh) has
    // Pub on two topics and nothing more: RocketMQ 5.3's ACL 2.0 lets any
    // authenticated user read the configuration.
    SECTION("signed as the bridge's shipped account it is read: the refusal was the ACL's") {
        ClientSecurity security;
        security.credentials =
            Credentials{env.at("ROCKETMQ_ACCESS_KEY"), file_text(env.at("ROCKETMQ_SECRET_FILE"))};
        const BrokerReport read = survey_one(env, security);
        CHECK(read.durability.verdict == Durability::kNotDurable);
    }
}

int main(int argc, char* argv[]) {
    if (env_file_of("OUTPOST_ROCKETMQ_ENV").empty() &&
        env_file_of("OUTPOST_ROCKETMQ_TLS_ENV").empty() &&
        env_file_of("OUTPOST_ROCKETMQ_AUTH_ENV").empty()) {
        std::printf("1..0 # SKIP no RocketMQ env file is set (scripts/rocketmq.sh start DIR)\n");
        return 0;
    }
    return Catch::Session().run(argc, argv);
}
