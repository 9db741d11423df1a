#include "daemon/start_warnings.h"

#include "common/config_file_mode.h"
#include "common/transport_security.h"

namespace outpost::daemon {

std::vector<std::string> weakened_security_warnings(const DaemonConfig& config) {
    std::vector<std::string> warnings = leg_security_warnings(broker_leg_security(config));
    std::vector<std::string> secrets;
    if (!config.publisher.endpoint.password.empty()) secrets.push_back("broker.password");
    if (!config.publisher.endpoint.tls.key_password.empty())
        secrets.push_back("broker.tls.key_password");
    if (!config.config_path.empty()) {
        std::string exposed = exposed_secrets_warning(config.config_path, secrets);
        if (!exposed.empty()) warnings.push_back(std::move(exposed));
    }
    return warnings;
}

}  // namespace outpost::daemon
