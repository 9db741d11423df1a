// RocketMQ credentials and TLS settings: the secret only from a file that not
// every user can read, the keys named in errors, and TLS files checked at start.
#include "bridge/rocketmq_security.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "bridge/config.h"
#include "temp_dir.h"

using outpost::StatusCode;
using outpost::testing::TempDir;
using namespace outpost::bridge;

namespace {

std::string write_file(const TempDir& dir, const std::string& name, const std::string& content,
                       mode_t mode) {
    const std::string path = dir.file(name);
    std::ofstream(path) << content;
    REQUIRE(::chmod(path.c_str(), mode) == 0);
    return path;
}

std::string config_with(const std::string& rocketmq_extra) {
    return R"({
  "mqtt": {"uri": "tcp://127.0.0.1:1883", "client_id": "bridge-1"},
  "rocketmq": {"name_servers": "127.0.0.1:9876")" +
           rocketmq_extra + R"(},
  "mapping": [{"mqtt_filter": "outpost/+/alarm/+", "rocketmq_topic": "outpost_alarms"}],
  "quarantine_topic": "outpost_quarantine"
})";
}

std::string error_of(const std::string& text) {
    auto config = parse_bridge_config(text);
    REQUIRE_FALSE(config.is_ok());
    return config.status().message();
}

}  // namespace

TEST_CASE("the secret comes from its file, without the trailing newline") {
    TempDir dir;
    const std::string path = write_file(dir, "secret", "s3cr3t\n", 0600);
    auto secret = read_secret_file(path);
    REQUIRE(secret.is_ok());
    CHECK(*secret == "s3cr3t");
    CHECK(read_secret_file(write_file(dir, "group", "g\n", 0640)).is_ok());
}

TEST_CASE("a secret file every user can read is refused with the chmod that fixes it") {
    TempDir dir;
    const std::string path = write_file(dir, "secret", "s3cr3t\n", 0644);
    auto secret = read_secret_file(path);
    REQUIRE_FALSE(secret.is_ok());
    CHECK(secret.status().code() == StatusCode::kInvalidArgument);
    CHECK(secret.status().message().find("readable or writable by every user (mode 0644)") !=
          std::string::npos);
    CHECK(secret.status().message().find("chmod 600 " + path) != std::string::npos);
    CHECK(secret.status().message().find("s3cr3t") == std::string::npos);
}

TEST_CASE("a missing or empty secret file is refused, naming the file") {
    TempDir dir;
    auto missing = read_secret_file(dir.file("absent"));
    REQUIRE_FALSE(missing.is_ok());
    CHECK(missing.status().message().find(dir.file("absent")) != std::string::npos);
    auto empty = read_secret_file(write_file(dir, "empty", "\n", 0600));
    REQUIRE_FALSE(empty.is_ok());
    CHECK(empty.status().message().find("is empty") != std::string::npos);
}

TEST_CASE("the access key and secret file parse together, and a secret in the JSON is refused") {
    auto config = parse_bridge_config(
        config_with(R"(, "access_key": "bridge", "secret_file": "/etc/outpost/rmq.secret")"));
    REQUIRE(config.is_ok());
    CHECK(config->rocketmq.access_key == "bridge");
    CHECK(config->rocketmq.secret_file == "/etc/outpost/rmq.secret");
    CHECK(error_of(config_with(R"(, "access_key": "bridge")"))
              .find("rocketmq.access_key needs rocketmq.access_key and rocketmq.secret_file") !=
          std::string::npos);
    CHECK(error_of(config_with(R"(, "access_key": "b", "secret_file": "/f", "secret_key": "x")"))
              .find("rocketmq.secret_key is not accepted here") != std::string::npos);
}

TEST_CASE("TLS settings parse, and TLS files without tls.enabled are an error") {
    auto config = parse_bridge_config(
        config_with(R"(, "tls": {"enabled": true, "ca_file": "/etc/outpost/rmq-ca.pem"})"));
    REQUIRE(config.is_ok());
    CHECK(config->rocketmq.tls.enabled);
    CHECK_FALSE(config->rocketmq.tls.insecure_skip_verify);
    CHECK(error_of(config_with(R"(, "tls": {"ca_file": "/ca.pem"})"))
              .find("rocketmq.tls.enabled must be true") != std::string::npos);
    CHECK(error_of(config_with(R"(, "tls": {"enabled": true, "cert_file": "/c.pem"})"))
              .find("rocketmq.tls.cert_file and rocketmq.tls.key_file must be given together") !=
          std::string::npos);
}

TEST_CASE("security loads nothing by default and names an unreadable CA file") {
    RocketMqConfig plain;
    auto none = load_rocketmq_security(plain);
    REQUIRE(none.is_ok());
    CHECK_FALSE(none->credentials.has_value());
    CHECK(none->tls == nullptr);

    RocketMqConfig tls;
    tls.tls.enabled = true;
    tls.tls.ca_file = "/nonexistent/ca.pem";
    auto failed = load_rocketmq_security(tls);
    REQUIRE_FALSE(failed.is_ok());
    CHECK(failed.status().code() == StatusCode::kInvalidArgument);
    CHECK(failed.status().message().find("CA file /nonexistent/ca.pem") != std::string::npos);
}
