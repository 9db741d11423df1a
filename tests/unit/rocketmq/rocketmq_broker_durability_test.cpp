// The broker configuration body and the durability rules of
// rocketmq/broker_durability.h, on settings as a broker reports them.
#include <catch2/catch.hpp>

#include "rocketmq/broker_durability.h"

using namespace outpost::rocketmq;

namespace {

BrokerSettings plain_master() {
    return {{"flushDiskType", "ASYNC_FLUSH"},
            {"brokerRole", "ASYNC_MASTER"},
            {"inSyncReplicas", "1"},
            {"enableDLegerCommitLog", "false"},
            {"enableControllerMode", "false"}};
}

}  // namespace

TEST_CASE("the configuration body is read as key=value lines") {
    auto settings = parse_broker_settings("brokerName=a\r\nflushDiskType=SYNC_FLUSH\n\nempty=\n"
                                          "storePathRootDir=/x=y\n");
    REQUIRE(settings.is_ok());
    CHECK(settings->at("brokerName") == "a");
    CHECK(settings->at("flushDiskType") == "SYNC_FLUSH");
    CHECK(settings->at("empty").empty());
    CHECK(settings->at("storePathRootDir") == "/x=y");
    CHECK(parse_broker_settings("").is_ok());
    CHECK_FALSE(parse_broker_settings("a=1\nno separator\n").is_ok());
    CHECK_FALSE(parse_broker_settings("=1\n").is_ok());
    CHECK_FALSE(parse_broker_settings("a=1\na=2\n").is_ok());
}

TEST_CASE("asynchronous flush without a replication wait is not durable") {
    CHECK(judge_broker_durability(plain_master()).verdict == Durability::kNotDurable);
    BrokerSettings pool = plain_master();
    pool["transientStorePoolEnable"] = "true";
    CHECK(judge_broker_durability(pool).reason.find("process crash") != std::string::npos);
}

TEST_CASE("SYNC_FLUSH is durable whatever the role") {
    BrokerSettings settings = plain_master();
    settings["flushDiskType"] = "SYNC_FLUSH";
    const BrokerDurability judged = judge_broker_durability(settings);
    CHECK(judged.verdict == Durability::kDurable);
    CHECK(judged.flush_disk_type == "SYNC_FLUSH");
    CHECK(judged.broker_role == "ASYNC_MASTER");
    settings["enableControllerMode"] = "true";
    CHECK(judge_broker_durability(settings).verdict == Durability::kDurable);
}

TEST_CASE("SYNC_MASTER counts only when it waits for a slave (inSyncReplicas of 2 or more)") {
    BrokerSettings settings = plain_master();
    settings["brokerRole"] = "SYNC_MASTER";
    const BrokerDurability alone = judge_broker_durability(settings);
    CHECK(alone.verdict == Durability::kNotDurable);
    CHECK(alone.reason.find("inSyncReplicas is 1") != std::string::npos);
    settings.erase("inSyncReplicas");  // the broker's default is 1
    CHECK(judge_broker_durability(settings).verdict == Durability::kNotDurable);
    settings["inSyncReplicas"] = "2";
    CHECK(judge_broker_durability(settings).verdict == Durability::kDurable);
    settings["brokerRole"] = "ASYNC_MASTER";
    CHECK(judge_broker_durability(settings).verdict == Durability::kNotDurable);
}

TEST_CASE("modes whose guarantee other settings decide, and missing settings, are unknown") {
    BrokerSettings dledger = plain_master();
    dledger["enableDLegerCommitLog"] = "true";
    dledger["flushDiskType"] = "SYNC_FLUSH";
    CHECK(judge_broker_durability(dledger).verdict == Durability::kUnknown);
    BrokerSettings controller = plain_master();
    controller["enableControllerMode"] = "true";
    controller["brokerRole"] = "SYNC_MASTER";
    controller["inSyncReplicas"] = "2";
    CHECK(judge_broker_durability(controller).verdict == Durability::kUnknown);
    BrokerSettings missing = plain_master();
    missing.erase("flushDiskType");
    const BrokerDurability judged = judge_broker_durability(missing);
    CHECK(judged.verdict == Durability::kUnknown);
    CHECK_FALSE(judged.reason.empty());
}

TEST_CASE("a report names the broker, its settings and the verdict on one line") {
    BrokerReport report{"broker-a", "127.0.0.1:10911", judge_broker_durability(plain_master())};
    const std::string line = describe_broker_report(report);
    CHECK(line.find("broker broker-a (127.0.0.1:10911)") == 0);
    CHECK(line.find("flushDiskType=ASYNC_FLUSH brokerRole=ASYNC_MASTER") != std::string::npos);
    CHECK(line.find(": not durable: ") != std::string::npos);
    CHECK(line.find('\n') == std::string::npos);
}
