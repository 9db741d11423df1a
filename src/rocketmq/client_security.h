// How a Connection proves who it is and protects its stream: optional request
// signing (request_signer.h) and optional TLS (tls_socket.h). The same value
// serves the name servers and every broker, as in RocketMQ's own clients.
#ifndef OUTPOST_ROCKETMQ_CLIENT_SECURITY_H
#define OUTPOST_ROCKETMQ_CLIENT_SECURITY_H

#include <memory>
#include <optional>

#include "rocketmq/request_signer.h"
#include "rocketmq/tls_socket.h"

namespace outpost::rocketmq {

struct ClientSecurity {
    // When set, every request is signed with these before it is encoded.
    std::optional<Credentials> credentials;
    // When set, every connection is TLS with this context; null: plain TCP.
    std::shared_ptr<const TlsContext> tls;
};

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_CLIENT_SECURITY_H
