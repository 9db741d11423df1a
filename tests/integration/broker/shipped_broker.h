// The shipped broker configuration (deploy/mosquitto) under test, as shipped:
// outpost.conf as Meson configured it and outpost.acl from the source tree,
// with only these substituted: the two listener ports (free loopback ports),
// the paths of the certificates, CRL, password file, ACL, plugin and
// persistence directory (a throwaway PKI and files of the test), syslog
// replaced by stderr (the test reads the log), and `user root` added when the
// tests run as root (mosquitto would otherwise drop to the mosquitto user,
// which cannot read the test's files).
//
// The password file holds the user the shipped ACL names, bridge-1.
#ifndef OUTPOST_TESTS_INTEGRATION_BROKER_SHIPPED_BROKER_H
#define OUTPOST_TESTS_INTEGRATION_BROKER_SHIPPED_BROKER_H

#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mosquitto_fixture.h"
#include "temp_dir.h"
#include "test_pki.h"

namespace outpost::testing {

constexpr const char* kBridgeUser = "bridge-1";
constexpr const char* kBridgePassword = "bridge-secret";

class ShippedBroker final {
  public:
    // Makes the gateway CA and the broker's certificate; start() runs it.
    ShippedBroker()
        : gateway_port_(free_loopback_port()), bridge_port_(free_loopback_port()) {
        ca_ = pki_.make_ca("outpost-gateway-ca");
        server_ = pki_.issue(ca_, "127.0.0.1", true);
    }
    ~ShippedBroker() { stop(); }
    ShippedBroker(const ShippedBroker&) = delete;
    ShippedBroker& operator=(const ShippedBroker&) = delete;

    // A gateway certificate with `common_name` as its CN, from the gateway CA.
    CertFiles gateway_certificate(const std::string& common_name) {
        return pki_.issue(ca_, common_name, false);
    }
    const CertFiles& ca() const { return ca_; }

    // Writes the configuration (the CRL listing `revoked`) and starts
    // mosquitto; returns once it is ready.
    void start(const std::vector<CertFiles>& revoked = {}) {
        write_files(revoked);
        const size_t log_start = log().size();
        pid_ = spawn_logged({find_program("mosquitto"), "-c", dir_.file("mosquitto.conf")},
                            log_path());
        await_broker_ready(pid_, log_path(), log_start, "mosquitto", std::chrono::seconds(10),
                           [](const std::string& text, size_t from) {
                               const size_t ready = text.find(" running", from);
                               return ready != std::string::npos &&
                                      text.rfind("mosquitto version", ready) != std::string::npos;
                           });
    }
    void stop() {
        terminate_child(pid_);
        pid_ = -1;
    }

    std::string gateway_uri() const { return "ssl://127.0.0.1:" + std::to_string(gateway_port_); }
    std::string bridge_uri() const { return "ssl://127.0.0.1:" + std::to_string(bridge_port_); }
    std::string log_path() const { return dir_.file("mosquitto.log"); }
    std::string log() const { return read_file(log_path()); }

  private:
    void write_files(const std::vector<CertFiles>& revoked) {
        const std::string crl = pki_.make_crl(ca_, revoked);
        write_password_file();
        const std::map<std::string, std::string> paths = {
            {"/etc/mosquitto/outpost/gateway-ca.crt", ca_.cert},
            {"/etc/mosquitto/outpost/gateway-ca.crl", crl},
            {"/etc/mosquitto/outpost/broker.crt", server_.cert},
            {"/etc/mosquitto/outpost/broker.key", server_.key},
            {"/etc/mosquitto/outpost/passwords", dir_.file("passwords")},
            {"/etc/mosquitto/outpost/outpost.acl",
             std::string(OUTPOST_SOURCE_ROOT) + "/deploy/mosquitto/outpost.acl"},
            {"/var/lib/mosquitto/", dir_.path() + "/"},
        };
        std::istringstream shipped(read_file(OUTPOST_SHIPPED_BROKER_CONF));
        std::ofstream conf(dir_.file("mosquitto.conf"));
        std::string line;
        while (std::getline(shipped, line)) {
            if (line.empty()) continue;
            if (line == "listener 8883") line = loopback_listener(gateway_port_);
            if (line == "listener 8884") line = loopback_listener(bridge_port_);
            if (line.rfind("plugin ", 0) == 0) {
                line = std::string("plugin ") + OUTPOST_IDENTITY_PLUGIN;
            }
            if (line == "log_dest syslog") line = "log_dest stderr";
            for (const auto& [shipped_path, test_path] : paths) {
                const size_t at = line.find(shipped_path);
                if (at != std::string::npos) line.replace(at, shipped_path.size(), test_path);
            }
            if (line[0] != '#' && line.find("/etc/mosquitto/") != std::string::npos) {
                throw std::runtime_error("the shipped configuration names a file the test does "
                                         "not provide: " + line);
            }
            conf << line << "\n";
        }
        if (::geteuid() == 0) conf << "user root\n";
    }

    static std::string loopback_listener(int port) {
        return "listener " + std::to_string(port) + " 127.0.0.1";
    }

    void write_password_file() {
        const pid_t pid = spawn_logged({find_program("mosquitto_passwd"), "-b", "-c",
                                        dir_.file("passwords"), kBridgeUser, kBridgePassword},
                                       dir_.file("mosquitto_passwd.log"));
        int status = 0;
        ::waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            throw std::runtime_error("mosquitto_passwd failed: " +
                                     read_file(dir_.file("mosquitto_passwd.log")));
        }
    }

    TestPki pki_;
    CertFiles ca_;
    CertFiles server_;
    TempDir dir_;
    int gateway_port_;
    int bridge_port_;
    pid_t pid_ = -1;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_INTEGRATION_BROKER_SHIPPED_BROKER_H
