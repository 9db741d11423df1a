// Settings that weaken the bridge's security but are allowed
// (common/transport_security.h, common/config_file_mode.h): logged as
// warnings at start, and the unverified TLS legs shown in the status line
// and metrics for as long as the bridge runs.
#ifndef OUTPOST_BRIDGE_OPS_WEAKENED_SECURITY_H
#define OUTPOST_BRIDGE_OPS_WEAKENED_SECURITY_H

#include <string>
#include <vector>

#include "bridge/config.h"
#include "bridge/ops/bridge_stats.h"

namespace outpost::bridge {

// Every warning for `config`, read from the file `config_path`: one
// sentence each, empty when none.
std::vector<std::string> weakened_security_warnings(const BridgeConfig& config,
                                                    const std::string& config_path);

// The legs ("mqtt", "rocketmq") that accept any server certificate.
std::vector<std::string> unverified_tls_legs(const BridgeConfig& config);

// `inner`'s figures with tls_verify_disabled filled from the configuration.
// Borrows `inner`, which must outlive it.
class FiguresWithSettings final : public FiguresSource {
  public:
    FiguresWithSettings(const FiguresSource& inner, const BridgeConfig& config)
        : inner_(inner), unverified_(unverified_tls_legs(config)) {}
    BridgeFigures figures() const override;
    std::vector<BridgeFigures> lanes() const override { return inner_.lanes(); }

  private:
    const FiguresSource& inner_;
    const std::vector<std::string> unverified_;
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_OPS_WEAKENED_SECURITY_H
