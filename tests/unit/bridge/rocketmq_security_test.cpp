// RocketMQ credentials and TLS files: the secret only from a file that not
// every user can read, and TLS files checked at start (parsing: config_test).
#include "bridge/rocketmq/rocketmq_security.h"

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
