#include "bridge/rocketmq/rocketmq_security.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>


namespace outpost::bridge {
namespace {

Status bad_secret(const std::string& path, const std::string& what) {
    return Status::error(StatusCode::kInvalidArgument, "rocketmq.secret_file " + path + " " + what);
}

}  // namespace

Result<std::string> read_secret_file(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        return bad_secret(path, "cannot be read: " + std::string(std::strerror(errno)));
    }
    if (!S_ISREG(info.st_mode)) return bad_secret(path, "is not a regular file");
    if ((info.st_mode & (S_IROTH | S_IWOTH)) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
        return bad_secret(path, "is readable or writable by every user (mode " + std::string(mode) +
                                    "); refusing to use it. Run: chmod 600 " + path +
                                    " (or 640 with the bridge's group)");
    }
    std::ifstream file(path, std::ios::binary);
    if (!file) return bad_secret(path, "cannot be opened");
    std::ostringstream content;
    content << file.rdbuf();
    std::string secret = content.str();
    while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r' ||
                               secret.back() == ' ' || secret.back() == '\t')) {
        secret.pop_back();
    }
    if (secret.empty()) return bad_secret(path, "is empty");
    return secret;
}

Result<rocketmq::ClientSecurity> load_rocketmq_security(const RocketMqConfig& config) {
    rocketmq::ClientSecurity security;
    if (!config.access_key.empty()) {
        Result<std::string> secret = read_secret_file(config.secret_file);
        if (!secret.is_ok()) return secret.status();
        security.credentials = rocketmq::Credentials{config.access_key, std::move(secret).value()};
    }
    if (config.tls.enabled) {
        rocketmq::TlsOptions options;
        options.ca_file = config.tls.ca_file;
        options.cert_file = config.tls.cert_file;
        options.key_file = config.tls.key_file;
        options.insecure_skip_verify = config.tls.insecure_skip_verify;
        Result<std::shared_ptr<const rocketmq::TlsContext>> context =
            rocketmq::TlsContext::create(options);
        if (!context.is_ok()) return context.status().with_context("rocketmq.tls");
        security.tls = std::move(context).value();
    }
    return security;
}

}  // namespace outpost::bridge
