// outpostd refuses a bad configuration before it touches anything: exit 2
// and a message naming the offending field. The real binary, real files.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "daemon_harness.h"

using nlohmann::json;
using outpost::testing::TempDir;

namespace {

struct Run {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

Run run_outpostd(const TempDir& dir, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {outpost::testing::outpostd_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    const std::string log = dir.file("run.log");
    std::remove(log.c_str());
    const pid_t pid = outpost::testing::spawn_logged(argv, log);
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::string output = outpost::testing::read_file(log);
    for (char& c : output) c = c == '\n' ? '|' : c;  // a TAP message must not span lines
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), output};
}

Run check_config(const TempDir& dir, const std::string& text) {
    const std::string path = dir.file("config.json");
    std::ofstream(path) << text;
    return run_outpostd(dir, {"--config", path, "--check-config"});
}

json valid_config(const TempDir& dir) {
    return {{"gateway_id", "gw-1"},
            {"database", {{"path", dir.file("outbox.db")}}},
            {"broker", {{"uri", "tcp://127.0.0.1:1883"}}},
            {"ingest", {{"socket", dir.file("alarms.sock")}}}};
}

struct BadConfig {
    const char* what;
    json::json_pointer field;  // set to `value`; a null value removes it
    json value;
    const char* message;  // must appear in the output
};

}  // namespace

TEST_CASE("a valid configuration passes --check-config with exit 0 and a summary", "[daemon]") {
    TempDir dir;
    Run run = check_config(dir, valid_config(dir).dump());
    INFO(run.output);
    CHECK(run.exit_code == 0);
    CHECK(run.output.find("configuration OK") != std::string::npos);
    CHECK(run.output.find("gw-1") != std::string::npos);
}

TEST_CASE("each bad configuration exits 2 with a message naming its field", "[daemon]") {
    const std::vector<BadConfig> table = {
        {"no gateway id", json::json_pointer("/gateway_id"), nullptr, "gateway_id is required"},
        {"gateway id with a slash", json::json_pointer("/gateway_id"), "gw/1",
         "gateway_id must match"},
        {"no database path", json::json_pointer("/database/path"), nullptr,
         "database.path is required"},
        {"a typo at the top", json::json_pointer("/brokr"), json::object(),
         "brokr is not a known field"},
        {"a typo inside an object", json::json_pointer("/database/quota"), 1000,
         "database.quota is not a known field"},
        {"window as a string", json::json_pointer("/publisher/window"), "20",
         "publisher.window must be an integer from 1 to 65535"},
        {"window zero", json::json_pointer("/publisher/window"), 0,
         "publisher.window must be an integer from 1 to 65535"},
        {"broker over http", json::json_pointer("/broker/uri"), "http://127.0.0.1:1883",
         "broker.uri must start with tcp:// or ssl://"},
        {"certificate without key", json::json_pointer("/broker/tls/cert_file"), "/etc/c.pem",
         "broker.tls.cert_file and broker.tls.key_file must be given together"},
        {"password without user", json::json_pointer("/broker/password"), "secret",
         "broker.password is set without broker.username"},
        {"backoff cap below its start", json::json_pointer("/publisher/reconnect_max_ms"), 10,
         "publisher.reconnect_max_ms must not be below"},
        {"quota too small", json::json_pointer("/database/quota_bytes"), 10,
         "database.quota_bytes must be an integer from 262144"},
        // Between the old config minimum and the store's: --check-config
        // passed it and outpostd then failed to open the store.
        {"quota below the store's minimum", json::json_pointer("/database/quota_bytes"), 100000,
         "database.quota_bytes must be an integer from 262144"},
        {"unknown corruption policy", json::json_pointer("/database/corruption_policy"), "wipe",
         "database.corruption_policy must be \"refuse\" or \"move_aside\""},
        {"metrics on every interface", json::json_pointer("/metrics/listen"), "0.0.0.0:9464",
         "metrics.listen \"0.0.0.0:9464\" is not a loopback address"},
        {"metrics port out of range", json::json_pointer("/metrics/listen"), "127.0.0.1:99999",
         "metrics.listen \"127.0.0.1:99999\" has a port"},
        {"metrics textfile not .prom", json::json_pointer("/metrics/textfile"), "/tmp/m.txt",
         "metrics.textfile must end in .prom"},
        {"socket mode as a number", json::json_pointer("/ingest/socket_mode"), 660,
         "ingest.socket_mode must be an octal mode"},
        {"empty telemetry ring", json::json_pointer("/telemetry/ring_capacity"), 0,
         "telemetry.ring_capacity must be an integer from 1"},
        {"telemetry not an object", json::json_pointer("/telemetry"), true,
         "telemetry must be an object"},
        {"unknown telemetry scheduling", json::json_pointer("/telemetry/scheduling"), "realtime",
         "telemetry.scheduling must be \"nice\" or \"idle\""},
        {"unknown log level", json::json_pointer("/logging/level"), "loud",
         "logging.level must be \"error\", \"warn\", \"info\" or \"debug\""},
        {"drain timeout negative", json::json_pointer("/publisher/drain_timeout_ms"), -1,
         "publisher.drain_timeout_ms must be an integer from 0"},
    };
    TempDir dir;
    for (const BadConfig& bad : table) {
        json config = valid_config(dir);
        if (bad.value.is_null()) {
            config[bad.field.parent_pointer()].erase(bad.field.back());
        } else {
            config[bad.field] = bad.value;
        }
        Run run = check_config(dir, config.dump());
        INFO(bad.what << ": " << run.output);
        CHECK(run.exit_code == 2);
        CHECK(run.output.find(bad.message) != std::string::npos);
    }
}

TEST_CASE("all problems of one file are reported together", "[daemon]") {
    TempDir dir;
    json config = valid_config(dir);
    config["publisher"]["window"] = 0;
    config["logging"]["level"] = "loud";
    Run run = check_config(dir, config.dump());
    INFO(run.output);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("configuration has 2 problems") != std::string::npos);
}

TEST_CASE("a non-loopback metrics address is accepted only when asked for explicitly", "[daemon]") {
    TempDir dir;
    json config = valid_config(dir);
    config["metrics"] = {{"listen", "0.0.0.0:9464"}, {"allow_non_loopback", true}};
    Run run = check_config(dir, config.dump());
    INFO(run.output);
    CHECK(run.exit_code == 0);
}

TEST_CASE("text that is not JSON, a missing file and bad arguments exit 2", "[daemon]") {
    TempDir dir;
    Run not_json = check_config(dir, "{\"gateway_id\": ");
    CHECK(not_json.exit_code == 2);
    CHECK(not_json.output.find("not valid JSON") != std::string::npos);

    Run missing = run_outpostd(dir, {"--config", dir.file("absent.json")});
    CHECK(missing.exit_code == 2);
    CHECK(missing.output.find("cannot read configuration file") != std::string::npos);

    Run unknown = run_outpostd(dir, {"--frobnicate"});
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.output.find("unknown argument '--frobnicate'") != std::string::npos);

    Run no_config = run_outpostd(dir, {});
    CHECK(no_config.exit_code == 2);

    Run help = run_outpostd(dir, {"--help"});
    CHECK(help.exit_code == 0);
    CHECK(help.output.find("--config FILE") != std::string::npos);
    CHECK(help.output.find("WATCHDOG=1") != std::string::npos);
}

TEST_CASE("a store that cannot be opened is a runtime failure: exit 1, the reason logged",
          "[daemon]") {
    TempDir dir;
    json config = valid_config(dir);
    config["database"]["path"] = dir.file("no-such-dir/outbox.db");
    const std::string path = dir.file("config.json");
    std::ofstream(path) << config.dump();
    Run run = run_outpostd(dir, {"--config", path});
    INFO(run.output);
    CHECK(run.exit_code == 1);
    CHECK(run.output.find("opening the store") != std::string::npos);
}
