// The checks every MqttEndpoint passes before a client starts with it (the
// alarm publisher and the telemetry lane run them in their start()), so the
// rules and their messages are written once.
#ifndef OUTPOST_PAHO_ENDPOINT_CHECK_H
#define OUTPOST_PAHO_ENDPOINT_CHECK_H

#include <string>

#include "outpost/mqtt_endpoint.h"

namespace outpost::paho {

// Empty when `endpoint` is usable; else what is wrong, naming the field
// ("endpoint.uri 'x' must start with tcp:// or ssl://"). The URI's host, the
// client id and the TLS files are judged by the MQTT client when it is made
// and connects.
std::string endpoint_problem(const MqttEndpoint& endpoint);

}  // namespace outpost::paho

#endif  // OUTPOST_PAHO_ENDPOINT_CHECK_H
