// outpostd's configuration refuses settings that would silently weaken its
// security, warns at start about those it allows, and shows an unverified
// broker certificate in its metrics and status.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "daemon/config.h"
#include "daemon/prometheus.h"
#include "daemon/snapshot.h"
#include "daemon/start_warnings.h"
#include "temp_dir.h"

using outpost::daemon::DaemonConfig;
using outpost::daemon::parse_daemon_config;

namespace {

// A configuration whose broker object is `broker` (JSON members) and whose
// ingest object is `ingest`.
std::string config_text(const std::string& broker, const std::string& ingest = "") {
    return R"({"gateway_id": "gw-1", "database": {"path": "/tmp/unused.db"},
               "broker": {)" +
           broker + R"(}, "ingest": {)" + ingest + "}}";
}

std::string error_of(const std::string& text) {
    auto config = parse_daemon_config(text);
    REQUIRE_FALSE(config.is_ok());
    return config.status().message();
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
    for (const std::string& line : lines) {
        if (line.find(text) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("a tls object next to a tcp:// broker URI is an error, not ignored") {
    CHECK(error_of(config_text(R"("uri": "tcp://10.0.0.5:1883", "tls": {"ca_file": "/ca.pem"})"))
              .find("broker.tls is set but broker.uri is tcp://10.0.0.5:1883") !=
          std::string::npos);
}

TEST_CASE("a broker password over tcp:// to a remote host is refused unless allowed, then warned") {
    const std::string remote =
        R"("uri": "tcp://broker.example.net:1883", "username": "gw-1", "password": "p")";
    CHECK(error_of(config_text(remote))
              .find("broker.password would travel unencrypted to broker.example.net") !=
          std::string::npos);
    auto allowed = parse_daemon_config(config_text(remote + R"(, "allow_plaintext_credentials": true)"));
    REQUIRE(allowed.is_ok());
    CHECK(mentions(outpost::daemon::weakened_security_warnings(*allowed),
                   "broker.allow_plaintext_credentials is true"));
    for (const char* loopback : {"tcp://127.0.0.1:1883", "tcp://localhost:1883", "tcp://[::1]:1883"}) {
        INFO(loopback);
        CHECK(parse_daemon_config(config_text(std::string(R"("uri": ")") + loopback +
                                              R"(", "username": "gw-1", "password": "p")"))
                  .is_ok());
    }
    auto encrypted = parse_daemon_config(config_text(
        R"("uri": "ssl://broker.example.net:8883", "username": "gw-1", "password": "p")"));
    REQUIRE(encrypted.is_ok());
    CHECK(outpost::daemon::weakened_security_warnings(*encrypted).empty());
}

TEST_CASE("an unverified broker certificate is warned about and shows in metrics and status") {
    auto config = parse_daemon_config(
        config_text(R"("uri": "ssl://broker.example.net:8883", "tls": {"verify_server": false})"));
    REQUIRE(config.is_ok());
    CHECK(mentions(outpost::daemon::weakened_security_warnings(*config),
                   "broker.tls does not verify the server's certificate"));
    CHECK(outpost::verification_disabled(outpost::daemon::broker_leg_security(*config)));
    outpost::daemon::DaemonSnapshot snapshot;
    snapshot.tls_verify_disabled = true;
    CHECK(outpost::daemon::render_prometheus(snapshot).find("\noutpost_tls_verify_disabled 1\n") !=
          std::string::npos);
    CHECK(outpost::daemon::status_json(snapshot).at("tls_verify_disabled") == true);
    CHECK(outpost::daemon::status_line(snapshot).find("NOT verified") != std::string::npos);
    snapshot.tls_verify_disabled = false;
    CHECK(outpost::daemon::render_prometheus(snapshot).find("\noutpost_tls_verify_disabled 0\n") !=
          std::string::npos);
}

TEST_CASE("a world-writable alarm socket mode is refused") {
    for (const char* mode : {"0666", "0662", "0777"}) {
        INFO(mode);
        CHECK(error_of(config_text(R"("uri": "tcp://127.0.0.1:1883")",
                                   std::string(R"("socket_mode": ")") + mode + "\""))
                  .find("ingest.socket_mode is " + std::string(mode)) != std::string::npos);
    }
    CHECK(parse_daemon_config(config_text(R"("uri": "tcp://127.0.0.1:1883")",
                                          R"("socket_mode": "0660")"))
              .is_ok());
}

TEST_CASE("a configuration file with a password open to other users is warned about at start") {
    outpost::testing::TempDir dir;
    const std::string path = dir.path() + "/outpostd.json";
    std::ofstream(path) << config_text(
        R"("uri": "ssl://broker.example.net:8883", "username": "gw-1", "password": "p")");
    auto config = outpost::daemon::load_daemon_config(path);
    REQUIRE(config.is_ok());
    REQUIRE(::chmod(path.c_str(), 0644) == 0);
    CHECK(mentions(outpost::daemon::weakened_security_warnings(*config),
                   "holds broker.password and is open to every user (mode 0644)"));
    REQUIRE(::chmod(path.c_str(), 0600) == 0);
    CHECK(outpost::daemon::weakened_security_warnings(*config).empty());
    // The documented set-up: readable by the service's own group.
    REQUIRE(::chmod(path.c_str(), 0640) == 0);
    CHECK(outpost::daemon::weakened_security_warnings(*config).empty());
}
