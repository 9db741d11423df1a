// Bad input over the socket: each kind gets its own error code and a clear
// message, nothing is written, and the server keeps serving — on the same
// connection where the framing allows it, and on others.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ingest_harness.h"
#include "raw_sqlite.h"

using outpost::testing::call;
using outpost::testing::error_code;
using outpost::testing::IngestHarness;
using outpost::testing::RawSqlite;
using outpost::testing::send_raw;

namespace {

struct BadRequest {
    const char* what;
    std::string line;
    const char* code;
};

std::string alarm_line(const std::string& alarm_fields) {
    return R"({"op":"raise_alarm","alarm":{)" + alarm_fields + "}}";
}

std::vector<BadRequest> corpus() {
    const std::string valid_start = R"("deviceId":"pump-1","alarmType":"OVER_TEMPERATURE")";
    return {
        {"truncated JSON", R"({"op":"raise_alarm","alarm":{"deviceId":"pu)", "invalid_json"},
        {"not JSON at all", "hello outpostd", "invalid_json"},
        {"two documents on one line", R"({"op":"ping"} {"op":"ping"})", "invalid_json"},
        {"an array instead of an object", "[1,2,3]", "invalid_request"},
        {"no op", R"({"alarm":{}})", "invalid_request"},
        {"op of the wrong type", R"({"op":7})", "invalid_request"},
        {"unknown op", R"({"op":"self_destruct"})", "unknown_op"},
        {"unknown top-level field", R"({"op":"ping","force":true})", "invalid_request"},
        {"raise_alarm without alarm", R"({"op":"raise_alarm"})", "invalid_request"},
        {"alarm not an object", R"({"op":"raise_alarm","alarm":"fire"})", "invalid_request"},
        {"missing deviceId", alarm_line(R"("alarmType":"OVER_TEMPERATURE")"), "invalid_request"},
        {"missing alarmType", alarm_line(R"("deviceId":"pump-1")"), "invalid_request"},
        {"deviceId of the wrong type", alarm_line(R"("deviceId":12,"alarmType":"X")"),
         "invalid_request"},
        {"value of the wrong type", alarm_line(valid_start + R"(,"value":"hot")"),
         "invalid_request"},
        {"unknown severity", alarm_line(valid_start + R"(,"severity":"apocalyptic")"),
         "invalid_request"},
        {"misspelt field", alarm_line(valid_start + R"(,"device_id":"pump-1")"), "invalid_request"},
        {"deviceId that cannot be a topic level",
         alarm_line(R"("deviceId":"pump/1","alarmType":"X")"), "invalid_argument"},
        {"text over 1024 characters",
         alarm_line(valid_start + R"(,"text":")" + std::string(1100, 'x') + "\""),
         "invalid_argument"},
        {"invalid UTF-8", alarm_line(valid_start + ",\"text\":\"caf\xc3\x28\""), "invalid_utf8"},
        {"a number beyond double range", alarm_line(valid_start + R"(,"value":1e999)"),
         "invalid_json"},
        {"nesting 30000 levels deep",
         alarm_line(valid_start + R"(,"text":)" + std::string(30000, '[') +
                    std::string(30000, ']')),
         "invalid_request"},
        {"empty line", "", "invalid_request"},
        {"a field given twice", alarm_line(valid_start + R"(,"deviceId":"pump-2")"),
         "invalid_json"},
        {"a byte-order mark before the JSON", "\xEF\xBB\xBF" + alarm_line(valid_start),
         "invalid_json"},
        {"a NUL in alarmType", alarm_line(R"("deviceId":"pump-1","alarmType":"OVER\u0000TEMP")"),
         "invalid_argument"},
    };
}

}  // namespace

TEST_CASE("each bad request gets its error code and the connection keeps serving", "[ingest]") {
    IngestHarness harness;
    auto client = harness.connect();
    for (const auto& bad : corpus()) {
        INFO(bad.what);
        auto answer = send_raw(*client, bad.line);
        INFO(answer.dump());
        CHECK(answer["ok"] == false);
        CHECK(error_code(answer) == bad.code);
        CHECK_FALSE(answer["error"].value("message", "").empty());
        // Framing is intact: the same connection answers the next request.
        CHECK(call(*client, {{"op", "ping"}}) == nlohmann::json{{"ok", true}});
    }
    RawSqlite raw(harness.db_path, SQLITE_OPEN_READONLY);
    CHECK(raw.integer("SELECT count(*) FROM outbox") == 0);
    auto valid = call(*client, outpost::testing::alarm_request("pump-1"));
    CHECK(valid["ok"] == true);
    CHECK(harness.server->stats().errors == corpus().size());
}

TEST_CASE("an oversized line is refused, that connection closed, others keep being served",
          "[ingest]") {
    outpost::ingest::ServerOptions options;
    options.max_request_bytes = 4096;
    IngestHarness harness(options);
    auto bystander = harness.connect();
    REQUIRE(call(*bystander, {{"op", "ping"}})["ok"] == true);

    auto client = harness.connect();
    std::string huge = alarm_line(R"("deviceId":"pump-1","alarmType":"X","text":")" +
                                  std::string(100000, 'x') + "\"");
    auto answer = send_raw(*client, huge);
    INFO(answer.dump());
    CHECK(error_code(answer) == "request_too_large");
    // Framing is lost on that connection: the server closed it.
    auto after = client->exchange(R"({"op":"ping"})", outpost::testing::kAnswerTimeout);
    CHECK(after.status().code() == outpost::StatusCode::kUnavailable);

    CHECK(call(*bystander, outpost::testing::alarm_request("pump-2"))["ok"] == true);
    auto fresh = harness.connect();
    CHECK(call(*fresh, {{"op", "ping"}})["ok"] == true);
    RawSqlite raw(harness.db_path, SQLITE_OPEN_READONLY);
    CHECK(raw.integer("SELECT count(*) FROM outbox WHERE device_id = 'pump-1'") == 0);
}

TEST_CASE("a line just under the limit is accepted", "[ingest]") {
    outpost::ingest::ServerOptions options;
    options.max_request_bytes = 4096;
    IngestHarness harness(options);
    auto client = harness.connect();
    std::string line = alarm_line(R"("deviceId":"pump-1","alarmType":"X","text":")" +
                                  std::string(1000, 'x') + "\"");
    line += std::string(4096 - line.size(), ' ');  // JSON allows trailing blanks
    REQUIRE(line.size() == 4096);
    CHECK(send_raw(*client, line)["ok"] == true);
}
