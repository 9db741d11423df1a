// What the ingestion socket promises firmware: an eventId only for an alarm
// that is in the database, idempotent retries, and many clients at once.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ingest_harness.h"
#include "raw_sqlite.h"
#include "status_fields.h"

using outpost::testing::call;
using outpost::testing::IngestHarness;
using outpost::testing::RawSqlite;

TEST_CASE("an alarm raised over the socket is answered with an eventId whose row holds its fields",
          "[ingest]") {
    IngestHarness harness;
    auto client = harness.connect();
    auto answer = call(*client, outpost::testing::alarm_request("pump-7"));
    INFO(answer.dump());
    REQUIRE(answer["ok"] == true);
    std::string event_id = answer["eventId"];
    CHECK(event_id.size() == 36);
    CHECK(answer["deviceId"] == "pump-7");
    CHECK(answer["seq"] == 1);
    CHECK(answer["duplicate"] == false);

    // A second connection to the file, outside the library.
    RawSqlite raw(harness.db_path, SQLITE_OPEN_READONLY);
    std::string where = " FROM alarm_record WHERE event_id = '" + event_id + "'";
    CHECK(raw.text("SELECT device_id" + where) == "pump-7");
    CHECK(raw.text("SELECT alarm_type" + where) == "OVER_TEMPERATURE");
    CHECK(raw.text("SELECT event_type" + where) == "ALARM_RAISED");
    CHECK(raw.text("SELECT severity" + where) == "critical");
    CHECK(raw.text("SELECT value" + where) == "97.5");
    CHECK(raw.text("SELECT unit" + where) == "degC");
    CHECK(raw.text("SELECT text" + where) == "bearing temperature above limit");
    CHECK(raw.integer("SELECT count(*) FROM outbox WHERE state = 0 AND event_id = '" + event_id +
                      "'") == 1);
    CHECK(harness.server->stats().alarms_recorded == 1);
}

TEST_CASE("optional alarm fields may be left out and take their defaults", "[ingest]") {
    IngestHarness harness;
    auto client = harness.connect();
    auto answer = call(*client, {{"op", "raise_alarm"},
                                 {"alarm",
                                  {{"deviceId", "door-2"},
                                   {"alarmType", "DOOR_OPEN"},
                                   {"eventType", "ALARM_CLEARED"},
                                   {"value", nullptr}}}});
    INFO(answer.dump());
    REQUIRE(answer["ok"] == true);
    RawSqlite raw(harness.db_path, SQLITE_OPEN_READONLY);
    std::string where =
        " FROM alarm_record WHERE event_id = '" + answer["eventId"].get<std::string>() + "'";
    CHECK(raw.text("SELECT severity" + where) == "major");
    CHECK(raw.text("SELECT event_type" + where) == "ALARM_CLEARED");
    CHECK(raw.integer("SELECT value IS NULL" + where) == 1);
}

TEST_CASE("the same idempotency key over the socket answers duplicate with the first eventId",
          "[ingest]") {
    IngestHarness harness;
    auto first_client = harness.connect();
    auto first = call(*first_client, outpost::testing::alarm_request("pump-1", "boot-42-alarm-3"));
    REQUIRE(first["ok"] == true);
    CHECK(first["duplicate"] == false);

    // A retry as firmware would send it after a lost answer: new connection.
    auto retry_client = harness.connect();
    auto retry = call(*retry_client, outpost::testing::alarm_request("pump-1", "boot-42-alarm-3"));
    REQUIRE(retry["ok"] == true);
    CHECK(retry["duplicate"] == true);
    CHECK(retry["eventId"] == first["eventId"]);
    CHECK(retry["seq"] == first["seq"]);

    RawSqlite raw(harness.db_path, SQLITE_OPEN_READONLY);
    CHECK(raw.integer("SELECT count(*) FROM outbox") == 1);
    CHECK(raw.integer("SELECT count(*) FROM alarm_record") == 1);
}

TEST_CASE("eight concurrent clients raising fifty alarms each get distinct ids, all stored",
          "[ingest]") {
    constexpr int kClients = 8;
    constexpr int kAlarmsEach = 50;
    IngestHarness harness;
    // Threads only collect; every assertion runs on the test thread.
    std::vector<std::vector<std::string>> ids(kClients);
    std::vector<std::string> failures(kClients);
    std::vector<std::thread> threads;
    for (int c = 0; c < kClients; ++c) {
        threads.emplace_back([&, c] {
            auto client = outpost::ingest::Client::connect(harness.socket_path);
            if (!client) {
                failures[c] = client.status().to_string();
                return;
            }
            for (int i = 0; i < kAlarmsEach; ++i) {
                auto request = outpost::testing::alarm_request("dev-" + std::to_string(c));
                auto answer = (*client)->call(request, outpost::testing::kAnswerTimeout);
                if (!answer || (*answer)["ok"] != true) {
                    failures[c] = answer ? answer->dump() : answer.status().to_string();
                    return;
                }
                ids[c].push_back((*answer)["eventId"]);
            }
        });
    }
    for (auto& thread : threads) thread.join();

    std::set<std::string> distinct;
    for (int c = 0; c < kClients; ++c) {
        INFO("client " << c << ": " << failures[c]);
        CHECK(failures[c].empty());
        CHECK(ids[c].size() == static_cast<size_t>(kAlarmsEach));
        distinct.insert(ids[c].begin(), ids[c].end());
    }
    CHECK(distinct.size() == static_cast<size_t>(kClients * kAlarmsEach));

    RawSqlite raw(harness.db_path, SQLITE_OPEN_READONLY);
    CHECK(raw.integer("SELECT count(*) FROM outbox") == kClients * kAlarmsEach);
    auto stored = raw.column("SELECT event_id FROM alarm_record");
    CHECK(std::set<std::string>(stored.begin(), stored.end()) == distinct);
    // Per device, seq runs 1..50 without a gap.
    CHECK(raw.integer("SELECT count(DISTINCT device_id) FROM outbox WHERE seq BETWEEN 1 AND 50") ==
          kClients);
    CHECK(raw.integer("SELECT max(seq) FROM outbox") == kAlarmsEach);
    CHECK(harness.server->stats().alarms_recorded == static_cast<uint64_t>(kClients * kAlarmsEach));
}

TEST_CASE("a full store answers store_full, keeps every alarm it acknowledged, and keeps serving",
          "[ingest]") {
    outpost::StoreOptions store_options = outpost::testing::test_options();
    store_options.quota_bytes = 256 * 1024;
    IngestHarness harness({}, {}, true, store_options);
    auto client = harness.connect();
    int acknowledged = 0;
    nlohmann::json refusal;
    for (int i = 0; i < 5000 && refusal.is_null(); ++i) {
        auto request = outpost::testing::alarm_request("pump-" + std::to_string(i % 7));
        request["alarm"]["text"] = std::string(1000, 'x');
        auto answer = call(*client, request);
        if (answer["ok"] == true) {
            ++acknowledged;
        } else {
            refusal = answer;
        }
    }
    INFO(refusal.dump());
    REQUIRE(acknowledged > 50);
    CHECK(outpost::testing::error_code(refusal) == "store_full");
    RawSqlite raw(harness.db_path, SQLITE_OPEN_READONLY);
    CHECK(raw.integer("SELECT count(*) FROM outbox") == acknowledged);
    CHECK(raw.integer("SELECT count(*) FROM alarm_record") == acknowledged);
    CHECK(call(*client, {{"op", "ping"}})["ok"] == true);
}

TEST_CASE("ping answers ok and status reports store figures and ingest counters", "[ingest]") {
    IngestHarness harness;
    auto client = harness.connect();
    CHECK(call(*client, {{"op", "ping"}}) == nlohmann::json{{"ok", true}});
    REQUIRE(call(*client, outpost::testing::alarm_request("pump-1"))["ok"] == true);
    auto answer = call(*client, {{"op", "status"}});
    INFO(answer.dump());
    REQUIRE(answer["ok"] == true);
    CHECK(answer["status"]["store"]["pending"] == 1);
    CHECK(outpost::testing::keys_of(answer["status"]["store"]) ==
          outpost::testing::store_status_fields());
    CHECK(answer["status"]["ingest"]["alarms_recorded"] == 1);
    CHECK(answer["status"]["ingest"]["clients"] == 1);
}

TEST_CASE("status answers with what the status provider returns", "[ingest]") {
    IngestHarness harness({}, [] {
        return nlohmann::json{{"publisher", {{"connected", true}, {"inFlight", 3}}}};
    });
    auto answer = call(*harness.connect(), {{"op", "status"}});
    CHECK(answer["status"]["publisher"]["inFlight"] == 3);
}