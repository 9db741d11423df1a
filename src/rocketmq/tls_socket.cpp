#include "rocketmq/tls_socket.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <utility>

namespace outpost::rocketmq {
namespace {

// The most recent OpenSSL error as text, emptying its queue.
std::string openssl_error() {
    std::string text;
    while (unsigned long code = ERR_get_error()) {
        char buffer[256];
        ERR_error_string_n(code, buffer, sizeof buffer);
        text = buffer;
    }
    return text.empty() ? "no OpenSSL detail" : text;
}

Status bad_file(const TlsOptions& options, const std::string& what, const std::string& path) {
    return Status::error(StatusCode::kInvalidArgument, options.settings + ": cannot load " + what +
                                                           " " + path + ": " + openssl_error());
}

bool is_ip_literal(const std::string& host) {
    unsigned char buffer[sizeof(in6_addr)];
    return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
           inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

int do_handshake(SSL* ssl, void*, int) {
    return SSL_do_handshake(ssl);
}
int do_read(SSL* ssl, void* buffer, int size) {
    return SSL_read(ssl, buffer, size);
}
int do_write(SSL* ssl, void* buffer, int size) {
    return SSL_write(ssl, buffer, size);
}

}  // namespace

Result<std::shared_ptr<const TlsContext>> TlsContext::create(const TlsOptions& options) {
    if (options.cert_file.empty() != options.key_file.empty()) {
        return Status::error(StatusCode::kInvalidArgument,
                             options.settings +
                                 ": a client certificate needs its key and vice versa");
    }
    ERR_clear_error();
    SSL_CTX* raw = SSL_CTX_new(TLS_client_method());
    if (raw == nullptr) {
        return Status::error(StatusCode::kInternal,
                             options.settings + ": cannot create a context: " + openssl_error());
    }
    std::shared_ptr<const TlsContext> context(
        new TlsContext(raw, !options.insecure_skip_verify, options.settings));
    SSL_CTX_set_min_proto_version(raw, TLS1_2_VERSION);
    // Partial writes let write_all hand over what fits; the buffer may move
    // between retries because write_all retries from its new position.
    SSL_CTX_set_mode(raw, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (context->verifies_server()) {
        SSL_CTX_set_verify(raw, SSL_VERIFY_PEER, nullptr);
        const int loaded = options.ca_file.empty() ? SSL_CTX_set_default_verify_paths(raw)
                                                   : SSL_CTX_load_verify_locations(
                                                         raw, options.ca_file.c_str(), nullptr);
        if (loaded != 1) {
            return bad_file(options, "CA file",
                            options.ca_file.empty() ? "(system default)" : options.ca_file);
        }
    } else {
        SSL_CTX_set_verify(raw, SSL_VERIFY_NONE, nullptr);
    }
    if (!options.cert_file.empty()) {
        if (SSL_CTX_use_certificate_chain_file(raw, options.cert_file.c_str()) != 1) {
            return bad_file(options, "client certificate", options.cert_file);
        }
        // OpenSSL's default passphrase callback answers with this text; it is
        // read while the key loads and not kept by the context afterwards.
        std::string passphrase = options.key_password;
        SSL_CTX_set_default_passwd_cb_userdata(raw, passphrase.empty() ? nullptr : passphrase.data());
        const int key_loaded =
            SSL_CTX_use_PrivateKey_file(raw, options.key_file.c_str(), SSL_FILETYPE_PEM);
        SSL_CTX_set_default_passwd_cb_userdata(raw, nullptr);
        if (key_loaded != 1) {
            return bad_file(options,
                            options.key_password.empty()
                                ? "client key (if it is encrypted, give its key_password)"
                                : "client key (or its key_password is wrong)",
                            options.key_file);
        }
        if (SSL_CTX_check_private_key(raw) != 1) {
            return bad_file(options, "client key (it does not match the certificate)",
                            options.key_file);
        }
    }
    return context;
}

TlsContext::~TlsContext() {
    SSL_CTX_free(context_);
}

TlsSocket::TlsSocket(std::unique_ptr<TcpSocket> tcp, SSL* ssl, BIO* network_in, BIO* network_out,
                     std::string settings)
    : tcp_(std::move(tcp)),
      ssl_(ssl),
      network_in_(network_in),
      network_out_(network_out),
      settings_(std::move(settings)) {}

TlsSocket::~TlsSocket() {
    SSL_free(ssl_);  // frees both BIOs
}

Result<std::unique_ptr<TlsSocket>> TlsSocket::connect(const std::string& address,
                                                      const TlsContext& context,
                                                      Deadline deadline,
                                                      const std::string& server_name) {
    Result<std::unique_ptr<TcpSocket>> tcp = TcpSocket::connect(address, deadline);
    if (!tcp.is_ok()) {
        return tcp.status();
    }
    ERR_clear_error();
    SSL* ssl = SSL_new(context.native());
    BIO* network_in = BIO_new(BIO_s_mem());
    BIO* network_out = BIO_new(BIO_s_mem());
    if (ssl == nullptr || network_in == nullptr || network_out == nullptr) {
        SSL_free(ssl);
        BIO_free(network_in);
        BIO_free(network_out);
        return Status::error(StatusCode::kInternal,
                             "TLS to " + address + ": out of memory: " + openssl_error());
    }
    SSL_set_bio(ssl, network_in, network_out);
    std::unique_ptr<TlsSocket> stream(
        new TlsSocket(std::move(tcp).value(), ssl, network_in, network_out, context.settings()));
    SSL_set_connect_state(ssl);
    std::string host = server_name, port;
    if (host.empty()) split_address(address, &host, &port);  // it parsed: TCP connect took it
    if (context.verifies_server()) {
        // The certificate must name the server: an IP SAN for the numeric
        // addresses name servers and routes carry, a DNS name otherwise.
        X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
        const int named = is_ip_literal(host) ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
                                              : X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0);
        if (named != 1) {
            return Status::error(StatusCode::kInvalidArgument,
                                 "TLS to " + address + ": cannot check the server name " + host);
        }
    }
    if (!is_ip_literal(host)) {
        SSL_set_tlsext_host_name(ssl, host.c_str());
    }
    Result<int> done = stream->drive(do_handshake, nullptr, 0, "TLS handshake with", deadline);
    if (!done.is_ok()) {
        return done.status();
    }
    return stream;
}

Status TlsSocket::flush(Deadline deadline) {
    char buffer[16384];
    std::lock_guard<std::mutex> in_order(wire_out_);
    for (;;) {
        int taken = 0;
        {
            std::lock_guard<std::mutex> engine(engine_);
            if (BIO_ctrl_pending(network_out_) > 0) taken = BIO_read(network_out_, buffer, sizeof buffer);
        }
        if (taken <= 0) {
            break;
        }
        Status written =
            tcp_->write_all(std::string_view(buffer, static_cast<std::size_t>(taken)), deadline);
        if (!written.is_ok()) {
            return written;
        }
    }
    return Status::ok();
}

Status TlsSocket::fill(Deadline deadline) {
    char buffer[16384];
    Result<std::size_t> got = tcp_->read_some(buffer, sizeof buffer, deadline);
    if (!got.is_ok()) {
        return got.status();
    }
    std::lock_guard<std::mutex> engine(engine_);
    BIO_write(network_in_, buffer, static_cast<int>(*got));
    return Status::ok();
}

Result<int> TlsSocket::drive(int (*operation)(SSL*, void*, int), void* buffer, int size,
                             const char* what, Deadline deadline) {
    for (;;) {
        int result = 0;
        int error = SSL_ERROR_NONE;
        long verified = X509_V_OK;
        {
            std::lock_guard<std::mutex> engine(engine_);
            ERR_clear_error();  // OpenSSL's error queue is per thread
            result = operation(ssl_, buffer, size);
            error = result > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl_, result);
            if (result <= 0) verified = SSL_get_verify_result(ssl_);
        }
        // Whatever the engine produced (handshake records, an alert) goes out
        // first; an alert helps the server log why we hung up.
        Status flushed = flush(deadline);
        if (result > 0) {
            if (!flushed.is_ok()) {
                return flushed;
            }
            return result;
        }
        if (error == SSL_ERROR_WANT_READ) {
            if (!flushed.is_ok()) {
                return flushed;
            }
            Status filled = fill(deadline);
            if (!filled.is_ok()) {
                return filled;
            }
            continue;
        }
        if (error == SSL_ERROR_WANT_WRITE) {
            if (!flushed.is_ok()) {
                return flushed;
            }
            continue;
        }
        if (operation == do_handshake && verified != X509_V_OK) {
            return Status::error(
                StatusCode::kPermissionDenied,
                std::string(what) + " " + address() +
                    " refused the server certificate: " + X509_verify_cert_error_string(verified) +
                    " (check " + settings_ +
                    ".ca_file and that the certificate "
                    "names this server)");
        }
        if (error == SSL_ERROR_ZERO_RETURN) {
            return Status::error(StatusCode::kUnavailable,
                                 "TLS connection to " + address() + " closed by the peer");
        }
        return Status::error(StatusCode::kUnavailable,
                             std::string(what) + " " + address() + " failed: " + openssl_error());
    }
}

Status TlsSocket::write_all(std::string_view data, Deadline deadline) {
    while (!data.empty()) {
        const int chunk = static_cast<int>(std::min<std::size_t>(data.size(), 1 << 20));
        Result<int> written =
            drive(do_write, const_cast<char*>(data.data()), chunk, "writing over TLS to", deadline);
        if (!written.is_ok()) {
            return written.status();
        }
        data.remove_prefix(static_cast<std::size_t>(*written));
    }
    return Status::ok();
}

Status TlsSocket::read_exact(char* out, std::size_t size, Deadline deadline) {
    while (size > 0) {
        Result<std::size_t> got = read_some(out, size, deadline);
        if (!got.is_ok()) {
            return got.status();
        }
        out += *got;
        size -= *got;
    }
    return Status::ok();
}

Result<std::size_t> TlsSocket::read_some(char* out, std::size_t capacity, Deadline deadline) {
    const int chunk = static_cast<int>(std::min<std::size_t>(capacity, 1 << 20));
    Result<int> got = drive(do_read, out, chunk, "reading over TLS from", deadline);
    if (!got.is_ok()) return got.status();
    return static_cast<std::size_t>(*got);
}

Status TlsSocket::wait_readable(Deadline deadline) {
    {
        std::lock_guard<std::mutex> engine(engine_);
        if (SSL_pending(ssl_) > 0 || BIO_ctrl_pending(network_in_) > 0) return Status::ok();
    }
    return tcp_->wait_readable(deadline);
}

void TlsSocket::shutdown() {
    tcp_->shutdown();
}

bool TlsSocket::peer_closed() {
    std::lock_guard<std::mutex> engine(engine_);
    if (SSL_pending(ssl_) > 0) {
        return false;
    }
    // Move whatever arrived into the engine without waiting; the server's
    // close_notify (or its FIN) shows up here.
    char buffer[16384];
    for (;;) {
        Result<std::size_t> got =
            tcp_->read_some(buffer, sizeof buffer, std::chrono::steady_clock::now());
        if (!got.is_ok()) {
            if (got.status().code() != StatusCode::kTimeout) {
                return true;
            }
            break;
        }
        BIO_write(network_in_, buffer, static_cast<int>(*got));
    }
    if (BIO_ctrl_pending(network_in_) == 0) {
        return false;
    }
    ERR_clear_error();
    char byte;
    const int peeked = SSL_peek(ssl_, &byte, 1);
    if (peeked > 0) {
        return false;
    }
    const int error = SSL_get_error(ssl_, peeked);
    // Records that are not data (a TLS 1.3 session ticket) leave the stream open.
    return error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE;
}

Result<std::unique_ptr<ByteStream>> connect_stream(const std::string& address,
                                                   const TlsContext* tls, Deadline deadline,
                                                   const std::string& server_name) {
    if (tls == nullptr) {
        Result<std::unique_ptr<TcpSocket>> tcp = TcpSocket::connect(address, deadline);
        if (!tcp.is_ok()) return tcp.status();
        return std::unique_ptr<ByteStream>(std::move(tcp).value());
    }
    Result<std::unique_ptr<TlsSocket>> secured =
        TlsSocket::connect(address, *tls, deadline, server_name);
    if (!secured.is_ok()) return secured.status();
    return std::unique_ptr<ByteStream>(std::move(secured).value());
}

}  // namespace outpost::rocketmq
