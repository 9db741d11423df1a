// The MQTT endpoint as the services' configuration files write it, read in
// one place: outpostd's "broker" object and outpost-bridge's "mqtt" object
// share these keys, their checks and their messages.
//
//   uri          "tcp://host:port" or "ssl://host:port"
//   client_id    [A-Za-z0-9._-]{1,64}
//   username     with password; both absent: anonymous
//   password     needs username
//   tls          {ca_file, cert_file, key_file, key_password, verify_server};
//                cert_file and key_file together
//   keepalive_s  5 to 65535
//
// Each service reads the rest of the object itself (its connect timeout
// and reconnect pacing keys differ) and then judges the leg's transport
// security (common/transport_security.h).
#ifndef OUTPOST_COMMON_MQTT_ENDPOINT_READER_H
#define OUTPOST_COMMON_MQTT_ENDPOINT_READER_H

#include "common/json_object_reader.h"
#include "outpost/mqtt_endpoint.h"

namespace outpost {

// Reads the keys above from `in` into `endpoint`; an absent key leaves its
// field as it was. Problems go to `in`'s error list, each naming its field.
// `fixed_identity`: uri and client_id are required, and the client id must
// stay the same across restarts (it names a persistent session).
void read_mqtt_endpoint(JsonObjectReader& in, MqttEndpoint& endpoint, bool fixed_identity);

}  // namespace outpost

#endif  // OUTPOST_COMMON_MQTT_ENDPOINT_READER_H
