#include "client_id_rules.h"

#include <cstddef>

namespace outpost::broker_plugin {

namespace {

constexpr std::size_t kMaxIdentityLength = 64;
const std::string kGatewayPrefix = "outpost-";
const std::string kTelemetrySuffix = "-telemetry";
const std::string kReceiptsSuffix = "-receipts";

bool starts_with(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_identifier_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-';
}

// Shared by both kinds of identity: what keeps %u one plain topic level.
std::string identifier_problem(const std::string& identity) {
    if (identity.empty()) return "is empty";
    if (identity.size() > kMaxIdentityLength) return "is longer than 64 characters";
    for (char c : identity) {
        if (!is_identifier_char(c)) return "has a character outside [A-Za-z0-9._-]";
    }
    return "";
}

// "1".."999" without a leading zero: the bridge's session numbers.
bool is_session_number(const std::string& text) {
    if (text.empty() || text.size() > 3 || text[0] == '0') return false;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
    }
    return true;
}

}  // namespace

std::string gateway_identity_problem(const std::string& identity) {
    std::string problem = identifier_problem(identity);
    if (problem.empty() && ends_with(identity, kTelemetrySuffix)) {
        problem = "ends in -telemetry (another gateway's telemetry client id)";
    }
    return problem;
}

std::string bridge_username_problem(const std::string& username) {
    std::string problem = identifier_problem(username);
    if (problem.empty() && starts_with(username, kGatewayPrefix)) {
        problem = "starts with outpost- (the gateways' client ids)";
    }
    return problem;
}

bool gateway_may_use(const std::string& identity, const std::string& client_id) {
    const std::string own = kGatewayPrefix + identity;
    return client_id == own || client_id == own + kTelemetrySuffix;
}

bool bridge_may_use(const std::string& username, const std::string& client_id) {
    if (client_id == username || client_id == username + kReceiptsSuffix) return true;
    const std::string session_prefix = username + "-";
    return starts_with(client_id, session_prefix) &&
           is_session_number(client_id.substr(session_prefix.size()));
}

}  // namespace outpost::broker_plugin
