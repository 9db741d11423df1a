// Which MQTT client ids an authenticated identity may use on the shipped
// broker (deploy/mosquitto). Client ids are global across mosquitto's
// listeners, so the rules keep the gateways' and the bridges' ids in
// disjoint sets:
//   - a gateway (certificate identity G) may be "outpost-G" (its alarm
//     publisher) and "outpost-G-telemetry" (its telemetry lane), nothing else;
//   - a bridge (password user B) may be "B" and "B-<n>" (its sessions,
//     n = 1..999) and "B-receipts" (its receipt sender); B must not start
//     with "outpost-", which is where the gateways' ids live.
// No identity may contain a character outside [A-Za-z0-9._-] (so no '/',
// '+', '#' that an ACL pattern's %u would turn into extra topic levels or
// wildcards) or be longer than 64 characters: the rule outpostd applies to
// gateway_id. A gateway identity must not end in "-telemetry", or gateway
// "G-telemetry" could take gateway G's telemetry id.
#ifndef OUTPOST_DEPLOY_MOSQUITTO_PLUGIN_CLIENT_ID_RULES_H
#define OUTPOST_DEPLOY_MOSQUITTO_PLUGIN_CLIENT_ID_RULES_H

#include <string>

namespace outpost::broker_plugin {

// Empty when `identity` is a valid gateway identity (a certificate's CN);
// otherwise why not, for the broker's log.
std::string gateway_identity_problem(const std::string& identity);

// Empty when `username` is a valid bridge user name; otherwise why not.
std::string bridge_username_problem(const std::string& username);

// True when the gateway `identity` may connect as `client_id`.
bool gateway_may_use(const std::string& identity, const std::string& client_id);

// True when the bridge user `username` may connect as `client_id`.
bool bridge_may_use(const std::string& username, const std::string& client_id);

}  // namespace outpost::broker_plugin

#endif  // OUTPOST_DEPLOY_MOSQUITTO_PLUGIN_CLIENT_ID_RULES_H
