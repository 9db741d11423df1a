#include "bridge/ops/weakened_security.h"

#include <utility>

#include "common/config_file_mode.h"
#include "common/transport_security.h"

namespace outpost::bridge {

std::vector<std::string> weakened_security_warnings(const BridgeConfig& config,
                                                    const std::string& config_path) {
    std::vector<std::string> warnings;
    for (const LegSecurity& leg :
         {mqtt_leg_security(config.mqtt), rocketmq_leg_security(config.rocketmq)}) {
        for (std::string& warning : leg_security_warnings(leg)) warnings.push_back(std::move(warning));
    }
    std::vector<std::string> secrets;
    if (!config.mqtt.endpoint.password.empty()) secrets.push_back("mqtt.password");
    if (!config.mqtt.endpoint.tls.key_password.empty()) secrets.push_back("mqtt.tls.key_password");
    std::string exposed = exposed_secrets_warning(config_path, secrets);
    if (!exposed.empty()) warnings.push_back(std::move(exposed));
    return warnings;
}

std::vector<std::string> unverified_tls_legs(const BridgeConfig& config) {
    std::vector<std::string> legs;
    if (verification_disabled(mqtt_leg_security(config.mqtt))) legs.push_back("mqtt");
    if (verification_disabled(rocketmq_leg_security(config.rocketmq))) legs.push_back("rocketmq");
    return legs;
}

BridgeFigures FiguresWithSettings::figures() const {
    BridgeFigures figures = inner_.figures();
    figures.tls_verify_disabled = unverified_;
    return figures;
}

}  // namespace outpost::bridge
