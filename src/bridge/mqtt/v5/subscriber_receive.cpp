// Subscriber: reading from the broker. Keep-alive, PUBLISH (topic aliases,
// the Receive Maximum), PINGRESP, SUBACK, the broker's DISCONNECT; any other
// packet is a protocol violation for a subscriber.
#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "bridge/mqtt/v5/disconnect_packet.h"
#include "bridge/mqtt/v5/publish_packet.h"
#include "bridge/mqtt/v5/reason_codes.h"
#include "bridge/mqtt/v5/subscriber.h"

namespace outpost::bridge::mqtt5 {

Result<Message> Subscriber::receive(Deadline deadline) {
    while (pending_.empty()) {
        Status read = read_one(deadline);
        if (!read.is_ok()) return read;
    }
    Message message = std::move(pending_.front());
    pending_.pop_front();
    return message;
}

Status Subscriber::read_one(Deadline deadline) {
    if (!closed_.is_ok()) return closed_;
    const auto keep_alive = std::chrono::seconds(session_.keep_alive_seconds);
    for (;;) {
        const auto now = std::chrono::steady_clock::now();
        Deadline wake = deadline;
        if (session_.keep_alive_seconds > 0) {
            if (ping_sent_ && now >= *ping_sent_ + keep_alive) {
                return violated({kKeepAliveTimeout, "no PINGRESP within the keep-alive of " +
                                                        std::to_string(keep_alive.count()) + " s"});
            }
            if (!ping_sent_ && now >= last_write_ + keep_alive) {
                Status pinged = write(encode_pingreq());
                if (!pinged.is_ok()) return pinged;
                ping_sent_ = last_write_;
            }
            wake = std::min(wake, ping_sent_ ? *ping_sent_ + keep_alive : last_write_ + keep_alive);
        }
        RawPacket packet;
        Status stream_error;
        PacketError violation;
        switch (reader_.next(socket_.get(), wake, &packet, &stream_error, &violation)) {
            case PacketReader::Outcome::kPacket:
                return handle(packet);
            case PacketReader::Outcome::kTimeout:
                if (std::chrono::steady_clock::now() >= deadline) {
                    return Status::error(StatusCode::kTimeout, "no message before the deadline");
                }
                continue;  // keep-alive is due
            case PacketReader::Outcome::kStreamError:
                return closed_by(stream_error);
            case PacketReader::Outcome::kMalformed:
                return violated(violation);
        }
    }
}

Status Subscriber::handle(const RawPacket& packet) {
    switch (packet.type) {
        case kPublish:
            return handle_publish(packet);
        case kPingresp:
            if (packet.flags != 0 || !packet.body.empty()) {
                return violated({kMalformedPacket, "PINGRESP with flags or a body"});
            }
            ping_sent_.reset();
            return Status::ok();
        case kSuback: {
            Suback suback;
            if (PacketCheck bad = decode_suback(packet.flags, packet.body, &suback)) {
                return violated(*bad);
            }
            if (!awaited_suback_ || suback.packet_id != *awaited_suback_) {
                return violated({kProtocolError, "SUBACK for packet identifier " +
                                                     std::to_string(suback.packet_id) +
                                                     ", which no SUBSCRIBE used"});
            }
            awaited_suback_.reset();
            suback_ = std::move(suback);
            return Status::ok();
        }
        case kDisconnect: {
            Disconnect disconnect;
            if (PacketCheck bad = decode_disconnect(packet.flags, packet.body, &disconnect)) {
                return violated(*bad);
            }
            std::string message = "MQTT broker " + options_.address +
                                  " disconnected: " + reason_code_text(disconnect.reason_code);
            if (disconnect.properties.reason_string) {
                message += " (\"" + *disconnect.properties.reason_string + "\")";
            }
            return closed_by(Status::error(StatusCode::kUnavailable, message));
        }
        default:
            return violated({kProtocolError, "packet type " + std::to_string(packet.type) +
                                                 " is not one a broker sends to a subscriber"});
    }
}

Status Subscriber::handle_publish(const RawPacket& packet) {
    Publish publish;
    if (PacketCheck bad = decode_publish(packet.flags, packet.body, &publish)) {
        return violated(*bad);
    }
    if (PacketCheck bad = aliases_.resolve(&publish)) return violated(*bad);
    if (publish.qos == 1) {
        if (!order_.arrived(publish.packet_id)) {
            return violated({kProtocolError, "PUBLISH reuses packet identifier " +
                                                 std::to_string(publish.packet_id) +
                                                 " before its PUBACK"});
        }
        if (order_.held() > options_.receive_maximum) {
            return violated({kReceiveMaximumExceeded,
                             std::to_string(order_.held()) +
                                 " unacknowledged QoS 1 messages, above the Receive Maximum of " +
                                 std::to_string(options_.receive_maximum)});
        }
    }
    Message message;
    message.topic = std::move(publish.topic);
    message.payload = std::move(publish.payload);
    message.qos = publish.qos;
    message.dup = publish.dup;
    message.retain = publish.retain;
    message.packet_id = publish.packet_id;
    message.properties = std::move(publish.properties);
    pending_.push_back(std::move(message));
    return Status::ok();
}

}  // namespace outpost::bridge::mqtt5
