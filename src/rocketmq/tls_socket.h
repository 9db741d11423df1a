// TLS to name servers and brokers: a TlsContext built once from the
// configured files, and a TlsSocket per connection layered over a TcpSocket.
//
// Defaults are the safe ones: the server's certificate must chain to the
// configured CA file (or, with none given, the system's trust store) and name
// the address we connected to (IP SAN for the numeric addresses RocketMQ
// routes carry). Only TlsOptions::insecure_skip_verify turns that off.
//
// The TLS engine talks to the socket through memory buffers, so every byte
// still goes through TcpSocket: the same deadlines, and no SIGPIPE.
#ifndef OUTPOST_ROCKETMQ_TLS_SOCKET_H
#define OUTPOST_ROCKETMQ_TLS_SOCKET_H

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "outpost/status.h"
#include "rocketmq/byte_stream.h"
#include "rocketmq/tcp_socket.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;
typedef struct bio_st BIO;

namespace outpost::rocketmq {

struct TlsOptions {
    // PEM CA certificates the server's chain must end in; empty: the system's
    // default trust store.
    std::string ca_file;
    // PEM client certificate (chain) and its unencrypted key, for servers that
    // require client authentication; both or neither.
    std::string cert_file;
    std::string key_file;
    // The key file's passphrase, when it is encrypted; empty: not encrypted.
    std::string key_password;
    // Accept any server certificate and address. For tests against throwaway
    // brokers only: it gives up the protection TLS exists for.
    bool insecure_skip_verify = false;
    // Where these settings live in the user's configuration, so errors can
    // point there ("rocketmq.tls" or "mqtt.tls").
    std::string settings = "rocketmq.tls";
};

// An immutable OpenSSL client context, shared by every connection.
class TlsContext final {
  public:
    // Loads the files of `options`. Fails with kInvalidArgument naming the
    // file that cannot be read or parsed, or a key that does not match its
    // certificate.
    static Result<std::shared_ptr<const TlsContext>> create(const TlsOptions& options);
    ~TlsContext();
    TlsContext(const TlsContext&) = delete;
    TlsContext& operator=(const TlsContext&) = delete;

    bool verifies_server() const { return verify_; }
    const std::string& settings() const { return settings_; }
    SSL_CTX* native() const { return context_; }

  private:
    TlsContext(SSL_CTX* context, bool verify, std::string settings)
        : context_(context), verify_(verify), settings_(std::move(settings)) {}
    SSL_CTX* const context_;
    const bool verify_;
    const std::string settings_;
};

class TlsSocket final : public ByteStream {
  public:
    // Connects over TCP (TcpSocket::connect's failures) and completes the
    // handshake before `deadline`. The certificate must name `server_name`
    // (also sent as SNI unless numeric); empty: the host part of `address`,
    // so a numeric address is checked against the certificate's IP SANs. A
    // server certificate that does not verify or does not name the server
    // fails with kPermissionDenied, the message saying why ("certificate
    // verify failed: unable to get local issuer certificate"); any other
    // handshake failure (a plain-TCP server, a protocol mismatch) with
    // kUnavailable, a late one with kTimeout.
    static Result<std::unique_ptr<TlsSocket>> connect(const std::string& address,
                                                      const TlsContext& context, Deadline deadline,
                                                      const std::string& server_name = {});
    ~TlsSocket() override;
    TlsSocket(const TlsSocket&) = delete;
    TlsSocket& operator=(const TlsSocket&) = delete;

    // ByteStream's concurrency contract (one writer and one reader at a
    // time) holds: the engine (ssl_ and its BIOs) is used under engine_ only,
    // never while waiting on the socket, and the engine's output reaches the
    // socket in order under wire_out_. A reader holds no lock while it waits
    // for the server, so a writer is never stuck behind it.
    Status write_all(std::string_view data, Deadline deadline) override;
    Status read_exact(char* out, std::size_t size, Deadline deadline) override;
    Result<std::size_t> read_some(char* out, std::size_t capacity, Deadline deadline) override;
    // Also true once the server sent its TLS close_notify. Not while a read
    // is in progress (Connection asks only when nothing is outstanding).
    bool peer_closed() override;
    // Readable when the engine holds decrypted or undecrypted bytes already,
    // else when the socket is.
    Status wait_readable(Deadline deadline) override;
    void shutdown() override;
    const std::string& address() const override { return tcp_->address(); }

  private:
    TlsSocket(std::unique_ptr<TcpSocket> tcp, SSL* ssl, BIO* network_in, BIO* network_out,
              std::string settings);

    // Runs `operation` (an SSL_* call) until it succeeds, feeding the engine
    // from the socket and flushing what it wants to send. Returns its
    // positive result, or the error (`what` names the operation).
    Result<int> drive(int (*operation)(SSL*, void*, int), void* buffer, int size, const char* what,
                      Deadline deadline);
    Status flush(Deadline deadline);
    Status fill(Deadline deadline);

    std::unique_ptr<TcpSocket> tcp_;
    SSL* ssl_;
    BIO* network_in_;   // bytes from the server, owned by ssl_
    BIO* network_out_;  // bytes for the server, owned by ssl_
    std::mutex engine_;    // ssl_, network_in_, network_out_
    std::mutex wire_out_;  // moving network_out_'s bytes to the socket, in order
    const std::string settings_;  // TlsOptions::settings, for messages
};

// A plain TcpSocket when `tls` is null, else a TlsSocket checked against
// `server_name` (TlsSocket::connect).
Result<std::unique_ptr<ByteStream>> connect_stream(const std::string& address, const TlsContext* tls,
                                               Deadline deadline,
                                               const std::string& server_name = {});

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_TLS_SOCKET_H
