// Subscriber: connecting, subscribing, acknowledging, disconnecting. What
// arrives from the broker is handled in subscriber_receive.cpp.
#include "bridge/mqtt/v5/subscriber.h"

#include <utility>

#include "bridge/mqtt/v5/connect_packet.h"
#include "bridge/mqtt/v5/disconnect_packet.h"
#include "bridge/mqtt/v5/publish_packet.h"
#include "bridge/mqtt/v5/reason_codes.h"
#include "rocketmq/tls_socket.h"

namespace outpost::bridge::mqtt5 {
namespace {

StatusCode refusal_code(uint8_t reason) {
    switch (reason) {
        case 0x86:
        case 0x87:
        case 0x8A:
        case 0x8C:
            return StatusCode::kPermissionDenied;
        case 0x80:
        case 0x83:
        case 0x88:
        case 0x89:
        case 0x9C:
        case 0x9D:
        case 0x9F:
            return StatusCode::kUnavailable;
        default:
            return StatusCode::kRejected;
    }
}

std::string with_reason_string(std::string message, const Properties& properties) {
    if (properties.reason_string) message += " (\"" + *properties.reason_string + "\")";
    return message;
}

}  // namespace

Subscriber::Subscriber(const SubscriberOptions& options,
                       std::unique_ptr<rocketmq::ByteStream> socket)
    : options_(options),
      socket_(std::move(socket)),
      reader_(options.maximum_packet_size),
      aliases_(options.topic_alias_maximum) {}

Subscriber::~Subscriber() = default;

Result<std::unique_ptr<Subscriber>> Subscriber::connect(const SubscriberOptions& options) {
    const Deadline deadline = std::chrono::steady_clock::now() + options.connect_timeout;
    if (options.maximum_packet_size < 16) {
        return Status::error(StatusCode::kInvalidArgument,
                             "maximum_packet_size must be at least 16 bytes");
    }
    Result<std::unique_ptr<rocketmq::ByteStream>> socket =
        rocketmq::connect_stream(options.address, options.tls.get(), deadline, options.server_name);
    if (!socket.is_ok()) return socket.status().with_context("MQTT broker");
    std::unique_ptr<Subscriber> subscriber(new Subscriber(options, std::move(socket).value()));
    Status connected = subscriber->handshake();
    if (!connected.is_ok()) return connected;
    return subscriber;
}

Status Subscriber::handshake() {
    const Deadline deadline = std::chrono::steady_clock::now() + options_.connect_timeout;
    ConnectFields fields;
    fields.client_id = options_.client_id;
    fields.clean_start = options_.clean_start;
    fields.keep_alive_seconds = options_.keep_alive_seconds;
    fields.session_expiry_interval = options_.session_expiry_interval_seconds;
    fields.receive_maximum = options_.receive_maximum;
    fields.maximum_packet_size = options_.maximum_packet_size;
    fields.topic_alias_maximum = options_.topic_alias_maximum;
    fields.user_name = options_.user_name;
    fields.password = options_.password;
    std::string why;
    std::optional<std::string> connect = encode_connect(fields, &why);
    if (!connect) return Status::error(StatusCode::kInvalidArgument, "MQTT CONNECT: " + why);
    Status written = socket_->write_all(*connect, deadline);
    if (!written.is_ok()) return written.with_context("MQTT CONNECT");
    last_write_ = std::chrono::steady_clock::now();

    RawPacket packet;
    Status stream_error;
    PacketError violation;
    switch (reader_.next(socket_.get(), deadline, &packet, &stream_error, &violation)) {
        case PacketReader::Outcome::kPacket:
            break;
        case PacketReader::Outcome::kTimeout:
            return Status::error(StatusCode::kTimeout,
                                 "no CONNACK from MQTT broker " + options_.address + " in time");
        case PacketReader::Outcome::kStreamError:
            return stream_error.with_context("waiting for CONNACK");
        case PacketReader::Outcome::kMalformed:
            return violated(violation);
    }
    if (packet.type != kConnack) {
        return violated({kProtocolError, "the first packet is type " + std::to_string(packet.type) +
                                             ", not CONNACK"});
    }
    Connack connack;
    if (PacketCheck bad = decode_connack(packet.flags, packet.body, &connack)) {
        return violated(*bad);
    }
    if (connack.reason_code >= 0x80) {
        socket_->shutdown();
        closed_ = Status::error(
            refusal_code(connack.reason_code),
            with_reason_string("MQTT broker " + options_.address +
                                   " refused CONNECT of client id \"" + options_.client_id +
                                   "\": " + reason_code_text(connack.reason_code),
                               connack.properties));
        return closed_;
    }
    if (connack.reason_code != 0) {
        return violated({kProtocolError, "CONNACK reason code " +
                                             reason_code_text(connack.reason_code) +
                                             " is not one CONNACK may carry"});
    }
    if (connack.session_present && options_.clean_start) {
        return violated({kProtocolError, "CONNACK says Session Present after Clean Start"});
    }
    const Properties& properties = connack.properties;
    session_.session_present = connack.session_present;
    session_.client_id = properties.assigned_client_identifier.value_or(options_.client_id);
    session_.keep_alive_seconds =
        properties.server_keep_alive.value_or(options_.keep_alive_seconds);
    session_.session_expiry_interval_seconds =
        properties.session_expiry_interval.value_or(options_.session_expiry_interval_seconds);
    session_.maximum_qos = properties.maximum_qos.value_or(2);
    return Status::ok();
}

Status Subscriber::subscribe(const std::vector<Subscription>& subscriptions, Deadline deadline) {
    if (!closed_.is_ok()) return closed_;
    const uint16_t packet_id = next_packet_id_;
    next_packet_id_ = next_packet_id_ == 65535 ? 1 : next_packet_id_ + 1;
    std::string why;
    std::optional<std::string> packet = encode_subscribe(packet_id, subscriptions, &why);
    if (!packet) return Status::error(StatusCode::kInvalidArgument, "MQTT SUBSCRIBE: " + why);
    Status written = write(*packet);
    if (!written.is_ok()) return written;
    awaited_suback_ = packet_id;
    suback_.reset();
    while (!suback_) {
        Status read = read_one(deadline);
        if (read.code() == StatusCode::kTimeout) {
            return Status::error(StatusCode::kTimeout,
                                 "no SUBACK from MQTT broker " + options_.address + " in time");
        }
        if (!read.is_ok()) return read;
    }
    if (suback_->reason_codes.size() != subscriptions.size()) {
        return violated({kProtocolError, "SUBACK has " +
                                             std::to_string(suback_->reason_codes.size()) +
                                             " reason codes for " +
                                             std::to_string(subscriptions.size()) + " filters"});
    }
    for (std::size_t i = 0; i < subscriptions.size(); ++i) {
        const uint8_t code = suback_->reason_codes[i];
        if (code >= 0x80) {
            return Status::error(
                code == 0x87 ? StatusCode::kPermissionDenied : StatusCode::kRejected,
                with_reason_string("MQTT broker " + options_.address +
                                       " refused the subscription \"" + subscriptions[i].filter +
                                       "\": " + reason_code_text(code),
                                   suback_->properties));
        }
        if (code > subscriptions[i].maximum_qos) {
            return violated({kProtocolError, "SUBACK grants QoS " + std::to_string(code) +
                                                 " above the " +
                                                 std::to_string(subscriptions[i].maximum_qos) +
                                                 " asked for \"" + subscriptions[i].filter + "\""});
        }
    }
    return Status::ok();
}

Status Subscriber::acknowledge(uint16_t packet_id) {
    if (!closed_.is_ok()) return closed_;
    ready_.clear();
    Status taken = order_.acknowledge(packet_id, &ready_);
    if (!taken.is_ok()) return taken;
    if (ready_.empty()) return Status::ok();  // an earlier message is still unacknowledged
    acks_.clear();
    for (uint16_t id : ready_) append_puback(id, &acks_);
    return write(acks_);  // one write for the whole run of PUBACKs
}

Status Subscriber::write(const std::string& bytes) {
    Status written =
        socket_->write_all(bytes, std::chrono::steady_clock::now() + options_.write_timeout);
    if (!written.is_ok()) return closed_by(written.with_context("MQTT broker connection"));
    last_write_ = std::chrono::steady_clock::now();
    return Status::ok();
}

Status Subscriber::disconnect(uint8_t reason_code) {
    if (!closed_.is_ok()) return Status::ok();
    Status written = socket_->write_all(encode_disconnect(reason_code),
                                        std::chrono::steady_clock::now() + options_.write_timeout);
    socket_->shutdown();
    closed_ = Status::error(StatusCode::kClosed, "the MQTT subscriber disconnected");
    return written;
}

Status Subscriber::violated(const PacketError& violation) {
    // Best effort: the broker learns why before the socket closes.
    socket_
        ->write_all(encode_disconnect(violation.reason_code),
                    std::chrono::steady_clock::now() + std::chrono::milliseconds(100))
        .ignore_error("the connection closes either way");
    return closed_by(Status::error(
        StatusCode::kUnavailable,
        (violation.reason_code == kMalformedPacket ? "malformed packet from MQTT broker "
                                                   : "protocol violation by MQTT broker ") +
            options_.address + ": " + violation.message + "; connection closed with " +
            reason_code_text(violation.reason_code)));
}

Status Subscriber::closed_by(Status cause) {
    socket_->shutdown();
    closed_ = Status::error(StatusCode::kClosed, cause.message());
    return cause;
}

}  // namespace outpost::bridge::mqtt5
